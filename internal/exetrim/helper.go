package exetrim

// HelperArg is sandbox.HelperArg, the first argument of the sandbox
// helper (`olly __sandbox SPEC PROGRAM…`), which is not armed. It is not
// imported from internal/sandbox, which would make this package
// initialise late (see the package documentation); a test keeps the two
// equal.
const HelperArg = "__sandbox"
