import Foundation

/// A statement whose text depends only on code, built once, with some of its `uuid`
/// parameters filled in per call. Building a statement by interpolation (visibility
/// predicates spliced and renumbered, the row JSON's expression) costs every request tens of
/// thousands of instructions for text that never changes: `GET /v1/tasks/{id}` spent about a
/// fifth of its instructions there (bench/callgrind).
///
/// `build` runs once, with a fresh random UUID standing for each argument; every bind whose
/// text is an argument's stand-in is filled with that argument at each `query(_:)`, every other
/// bind is kept. If a stand-in leaked into the SQL text itself (an argument spliced as raw SQL
/// rather than bound), the text is not reusable and every call builds the statement anew, so
/// the result is always what `build` would give.
public struct PostgresQueryTemplate: Sendable {
    private let build: @Sendable ([UUID]) -> PostgresQuery
    private let arity: Int
    private let template: PostgresQuery?
    /// For each bind of `template`: the argument that fills it, or nil for a constant.
    private let slots: [Int?]

    public init(arguments arity: Int, _ build: @escaping @Sendable ([UUID]) -> PostgresQuery) {
        self.build = build
        self.arity = arity
        let standIns = (0..<arity).map { _ in UUID() }
        let query = build(standIns)
        let texts = standIns.map { PostgresBind($0) }
        let slots = query.binds.map { bind in texts.firstIndex(of: bind) }
        let leaked = texts.contains { text in text.text.map { query.sql.contains($0) } ?? false }
        self.template = leaked ? nil : query
        self.slots = leaked ? [] : slots
    }

    /// The statement for `arguments` (as many as the template was made for), equal to
    /// `build(arguments)`.
    public func query(_ arguments: [UUID]) -> PostgresQuery {
        guard let template, arguments.count == arity else { return build(arguments) }
        let encoded = arguments.map { PostgresBind($0) }
        var query = template
        for (index, slot) in slots.enumerated() {
            if let slot { query.binds[index] = encoded[slot] }
        }
        return query
    }
}
