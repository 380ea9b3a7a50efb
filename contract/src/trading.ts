// Contract of the trading module: request, answer and socket message schemas, and shared pure functions.
export {};
