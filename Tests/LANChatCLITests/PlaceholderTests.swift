import Testing

// Placeholder until the module under test lands; replaced by real tests.
@Test func LANChatCLITestsBuilds() { #expect(Bool(true)) }
