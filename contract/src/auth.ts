// Contract of the auth module: request, answer and socket message schemas, and shared pure functions.
export {};
