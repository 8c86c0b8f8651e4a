import HTTP1
import Testing

@Suite("Parser fixtures")
struct ParserFixtureTests {
    @Test func fixtureCorpusLoadsCompletely() {
        #expect(FixtureLibrary.loaded.errors == [])
        #expect(FixtureLibrary.all.count >= 80)
    }

    @Test("Fixture fed whole matches its expectations", arguments: FixtureLibrary.all)
    func fixtureWholeMatchesExpectations(_ fixture: Fixture) {
        let driver = ParserDriver.run(fixture.input, limits: fixture.limits, pieces: [])
        #expect(driver.violations == [])
        let outcome = driver.outcome
        #expect(outcome.count == fixture.expectations.count, "events: \(outcome)")
        for (expectation, event) in zip(fixture.expectations, outcome) {
            let problem = Expectation.mismatch(expectation, event)
            #expect(problem == nil, "\(problem ?? "")")
        }
    }

    @Test("Fixture split at every offset behaves like whole", arguments: FixtureLibrary.all)
    func fixtureSplitAtEveryOffsetMatchesWhole(_ fixture: Fixture) {
        let whole = ParserDriver.run(fixture.input, limits: fixture.limits, pieces: [])
        for offset in 0...fixture.input.count {
            let split = ParserDriver.run(fixture.input, limits: fixture.limits, pieces: [offset])
            #expect(split.violations == [], "split at \(offset)")
            if split.events != whole.events {
                Issue.record("split at \(offset): \(split.events) != \(whole.events)")
                return
            }
        }
    }

    @Test("Fixture fed one byte at a time behaves like whole", arguments: FixtureLibrary.all)
    func fixtureByteByByteMatchesWhole(_ fixture: Fixture) {
        let whole = ParserDriver.run(fixture.input, limits: fixture.limits, pieces: [])
        let bytewise = ParserDriver.run(fixture.input, limits: fixture.limits, pieces: Array(0..<fixture.input.count))
        #expect(bytewise.violations == [])
        #expect(bytewise.events == whole.events)
    }
}
