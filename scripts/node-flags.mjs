// V8 flags each service runs with, wherever it is started (npm start, the
// bench; deploy/docker/entrypoint.sh repeats them for the image).
//
// The executor allocates a little for every attempt at a high rate; a 32 MB
// young generation (V8's default is 16 MB on 64-bit) halves its scavenges.
// Measured on a burst of 20,000 fires: executor CPU per fire 360–415 µs →
// 320–360 µs, peak RSS +35 MB.
//
// The api parses /declare and /bulk bodies of up to 10 MiB before it knows
// the key (the interface orders it so), and anyone can send one. Such a body
// of 115,000 items, with no key: api CPU 100–210 ms per request with V8's
// default young generation, 80–110 ms with 32 MB (fewer of the parsed
// objects survive into the old generation before they are dropped).
export const NODE_FLAGS = {
  api: ["--max-semi-space-size=32"],
  scheduler: [],
  executor: ["--max-semi-space-size=32"],
};
