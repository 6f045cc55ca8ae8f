/** Stands for the tfjs backends the journey does not ship (WebGL): face-api's build imports them, the face step runs on WebAssembly. */
export {};
