import { takeContractViolations } from './openapi-contract';

// Responses sent after a file's last test (its teardown) were never checked
// by the default runner, whose module state ends with the file; where files
// share a worker's modules (the e2e runner), they are not the next file's.
beforeAll(() => {
  takeContractViolations();
});

// Every response an e2e test caused must match the OpenAPI document.
afterEach(() => {
  const violations = takeContractViolations();
  if (violations.length > 0) {
    throw new Error(
      `Responses that drift from the OpenAPI document:\n${violations.join('\n')}`,
    );
  }
});
