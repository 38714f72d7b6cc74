import { takeContractViolations } from './openapi-contract';

// Every response an e2e test caused must match the OpenAPI document.
afterEach(() => {
  const violations = takeContractViolations();
  if (violations.length > 0) {
    throw new Error(
      `Responses that drift from the OpenAPI document:\n${violations.join('\n')}`,
    );
  }
});
