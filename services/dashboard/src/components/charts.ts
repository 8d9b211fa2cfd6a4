// The overview's charts, in one module so that they and the charting
// library load as one chunk, with the first chart (pages/Overview.tsx).
export { LatenessChart } from "./LatenessChart";
export { OutcomeChart } from "./OutcomeChart";
export { UpcomingChart } from "./UpcomingChart";
