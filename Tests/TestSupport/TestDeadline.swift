/// How long a test waits for something that should happen before it
/// calls the test failed.
public enum TestDeadline {
    /// Generous on purpose: a passing wait returns as soon as its condition
    /// holds, so this bound costs nothing on success, and only a failure
    /// waits it out. Short bounds made tests fail on a busy machine (other
    /// jobs, a parallel `swift test`) for the machine's sake, not the code's.
    /// A test that asserts a time bound as behaviour names it with `within:`.
    public static let standard: Duration = .seconds(20)
}
