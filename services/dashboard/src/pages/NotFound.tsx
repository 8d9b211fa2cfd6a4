import { useEffect } from "react";
import { Link } from "../lib/router";

export function NotFound() {
  useEffect(() => {
    document.title = "Not found · ttr";
  }, []);
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no dashboard page here. <Link to="/">Go to the overview</Link>.
      </p>
    </section>
  );
}
