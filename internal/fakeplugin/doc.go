// Package fakeplugin holds test fixtures: fake datasets, transforms and
// methods, registered in init under names that begin with "fake-", and
// the experiments the tests build on them. The tests of package spec and
// package runner import it, so that both check the experiment language and
// its execution against the same plugins.
//
// Only _test.go files import fakeplugin (methods' TestFixturesOnlyInTests
// checks it): no command or library links a fake plugin.
package fakeplugin
