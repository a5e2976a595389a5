package command

// CloseServers stops the idle serve programs, for the tests of package
// command_test.
var CloseServers = closeServers
