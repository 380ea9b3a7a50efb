// Contract of the market module: request, answer and socket message schemas, and shared pure functions.
export {};
