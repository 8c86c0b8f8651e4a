import Domain
import Foundation
import Testing

/// Field value rules: prices, due dates, durations, texts, Slack messages, inputs, versions.
@Suite struct FieldRulesTests {
    @Test(arguments: [("0", true), ("19.99", true), ("19.9", true), ("19", true), ("9999999999.99", true),
                      ("19.999", false), ("-1", false), ("10000000000", false), ("1e3", false), ("", false),
                      (".5", false), ("5.", false), ("12,50", false), ("NaN", false)])
    func priceNeedsAtMostTwoDecimalsAndFitsTheColumn(_ text: String, _ valid: Bool) {
        var errors: [FieldError] = []
        let value = FieldRules.price(text, errors: &errors)
        #expect((value != nil) == valid)
        #expect(errors.count == (valid ? 0 : 1))
        #expect(errors.allSatisfy { $0.field == "price" && $0.code == "invalid_price" })
    }

    @Test(arguments: [(19.99, "19.99"), (525000.5, "525000.5"), (100.0, "100"), (0.1, "0.1")])
    func jsonNumbersKeepTheTextTheClientWrote(_ number: Double, _ text: String) {
        #expect(FieldRules.numberText(number) == text)
    }

    @Test(arguments: [("2026-12-01", "2026-12-01T00:00:00.000Z"), ("2026-12-01T09:00:00+01:00", "2026-12-01T08:00:00.000Z"),
                      ("2026-12-01T09:00:00.5Z", "2026-12-01T09:00:00.500Z")])
    func dueDateAcceptsTimestampsAndCalendarDates(_ text: String, _ formatted: String) throws {
        var errors: [FieldError] = []
        let date = try #require(FieldRules.dueDate(text, errors: &errors))
        #expect(Timestamp.format(date) == formatted)
    }

    @Test(arguments: ["tomorrow", "2026-13-01", "2026-12-1", "2026-12-01T09:00", "",
                      // Impossible calendar days were rolled into the next month (2026-02-30 → 03-02).
                      "2026-02-30", "2026-04-31", "2026-02-29", "2100-02-29", "2026-06-31T10:00:00Z", "2026-02-29T00:00:00+01:00"])
    func dueDateRejectsOtherFormats(_ text: String) {
        var errors: [FieldError] = []
        #expect(FieldRules.dueDate(text, errors: &errors) == nil)
        #expect(errors.map(\.code) == ["invalid_date"])
    }

    @Test(arguments: [(0.0, 0), (3600.0, 3600)] as [(Double, Int?)])
    func durationAcceptsWholeNonNegativeSeconds(_ value: Double, _ expected: Int?) {
        var errors: [FieldError] = []
        #expect(FieldRules.duration(value, errors: &errors) == expected)
    }

    @Test(arguments: [-1.0, 1.5, 3_000_000_000.0])
    func durationRejectsNegativeFractionalAndHugeValues(_ value: Double) {
        var errors: [FieldError] = []
        #expect(FieldRules.duration(value, errors: &errors) == nil)
        #expect(errors.count == 1)
    }

    @Test func textRulesTrimRequiredTextsAndCountCharacters() {
        var errors: [FieldError] = []
        #expect(FieldRules.text("  Call  ", field: "title", maximum: 10, allowBlank: false, errors: &errors) == "Call")
        #expect(FieldRules.text("   ", field: "title", maximum: 10, allowBlank: false, errors: &errors) == nil)
        #expect(FieldRules.text("ééééé", field: "city", maximum: 5, allowBlank: true, errors: &errors) == "ééééé")
        #expect(FieldRules.text("123456", field: "city", maximum: 5, allowBlank: true, errors: &errors) == nil)
        #expect(errors.map(\.code) == ["blank", "too_long"])
    }

    @Test func enumValuesAreExactStrings() {
        var errors: [FieldError] = []
        #expect(FieldRules.enumValue("in_progress", WorkItemStatus.self, field: "status", errors: &errors) == .inProgress)
        #expect(FieldRules.enumValue("In_Progress", WorkItemStatus.self, field: "status", errors: &errors) == nil)
        #expect(errors.map(\.field) == ["status"])
    }

    @Test func slackMessagesAreBounded() {
        var errors: [FieldError] = []
        #expect(FieldRules.slackMessages(["hi"], errors: &errors) == ["hi"])
        #expect(FieldRules.slackMessages(Array(repeating: "x", count: 101), errors: &errors) == nil)
        #expect(errors.count == 1)
    }

    @Test func slackMessagesAreBoundedInTotal() {
        var errors: [FieldError] = []
        let message = String(repeating: "m", count: FieldRules.slackMessageMaximum)
        // Three full messages (120,000 characters) pass each per-message limit but not the total.
        #expect(FieldRules.slackMessages(Array(repeating: message, count: 2), errors: &errors) != nil)
        #expect(FieldRules.slackMessages(Array(repeating: message, count: 3), errors: &errors) == nil)
        #expect(errors.map(\.field) == ["source_slack_messages"])
        #expect(errors.map(\.code) == ["too_long"])
    }

    /// One grapheme cluster may hold any number of combining marks; the limit counts code
    /// points (JSON Schema's `maxLength`), so such text cannot slip past it.
    @Test func textLengthCountsCodePointsNotGraphemes() {
        var errors: [FieldError] = []
        let stacked = "e" + String(repeating: "\u{301}", count: FieldRules.titleMaximum)
        #expect(stacked.count == 1)
        #expect(FieldRules.text(stacked, field: "title", maximum: FieldRules.titleMaximum, allowBlank: false, errors: &errors) == nil)
        #expect(errors.map(\.code) == ["too_long"])
        #expect(FieldRules.slackMessages([stacked + String(repeating: "\u{301}", count: FieldRules.slackMessageMaximum)],
                                         errors: &errors) == nil)
        #expect(ChildRules.checkNoteContent("e" + String(repeating: "\u{301}", count: ChildRules.noteContentMaximumLength)) != nil)
    }

    @Test func workItemInputRefusesClaimChangesAndDeletedStatus() {
        let holder = UUID()
        var input = WorkItemInput(.tasks)
        input.echoed["claimed_by"] = .uuid(holder)
        #expect(input.check(complete: false, currentClaimer: holder).isEmpty)
        #expect(input.check(complete: false, currentClaimer: nil).map(\.code) == ["read_only"])
        input.echoed["claimed_by"] = .null
        #expect(input.check(complete: false, currentClaimer: holder).map(\.code) == ["read_only"])
        input.echoed = [:]
        input.set("status", .text("deleted"))
        #expect(input.check(complete: true, currentClaimer: nil).map(\.code) == ["required", "use_delete"])
    }

    @Test func listingInputAppliesOwnerOnlyWhenGiven() throws {
        var input = ListingInput(.listings)
        let ownedBy = try #require(Resource.listings.description.column("owned_by"))
        let city = try #require(Resource.listings.description.column("city"))
        #expect(input.value(ownedBy, patch: false) == nil)
        #expect(input.value(city, patch: false) == .text(""))
        #expect(input.value(city, patch: true) == nil)
        let owner = UUID()
        input.set("owned_by", .uuid(owner))
        input.set("city", .text("Halifax"))
        #expect(input.value(ownedBy, patch: true) == .uuid(owner))
        #expect(input.value(city, patch: true) == .text("Halifax"))
        #expect(input.check(complete: true).map(\.field) == ["address"])
    }

    @Test(arguments: [(VersionCheck.none, nil, true), (.none, 3, true), (.exists, nil, false), (.exists, 3, true),
                      (.oneOf([2, 3]), 3, true), (.oneOf([2]), 3, false), (.oneOf([2]), nil, false)] as [(VersionCheck, Int?, Bool)])
    func versionChecksMatchIfMatchSemantics(_ check: VersionCheck, _ version: Int?, _ allowed: Bool) {
        #expect(check.allows(version: version) == allowed)
    }
}
