## Unit and integration tests of the runtime.
