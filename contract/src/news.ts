// Contract of the news module: request, answer and socket message schemas, and shared pure functions.
export {};
