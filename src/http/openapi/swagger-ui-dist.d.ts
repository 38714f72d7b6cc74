// The Swagger UI assets ship with @nestjs/swagger; this file of the package
// (untyped CommonJS) gives their folder without loading the browser bundle.
declare module 'swagger-ui-dist/absolute-path.js' {
  const getAbsoluteFSPath: () => string;
  export default getAbsoluteFSPath;
}
