@testable import API
@testable import Accounts
import Domain
import Foundation
import HTTPServer
import JSON
@testable import Operations
import Postgres
@testable import Realtime
@testable import Resources
@testable import RouteKit
@testable import ServiceKit
@testable import Store
@testable import Supabase
@testable import Sync
import TestSupport
import Testing

/// What a new column costs: a migration and one description change. A copy of the listings
/// description gains two columns, a copy of the table gains them too, and nothing else is
/// written: the generic parser reads and checks them, the generated INSERT stores them, a
/// PATCH changes only what it carries, a replace resets what it leaves out, and the replay
/// comparison sees them.
@Suite struct NewColumnPipelineTests {
    static let added = [
        ColumnDescription("floor_area", .integer, nullable: true, access: .writable, rule: .wholeNumber(unit: "square metres")),
        ColumnDescription("heating", .enumeration(["gas", "electric", "heat_pump"]), access: .writable,
                          omitted: .value(.text("gas"))),
    ]

    static let description: ResourceDescription = {
        let listings = Resource.listings.description
        return ResourceDescription(name: "listings_extended", table: "listings_extended", columns: listings.columns + added,
                                   visibility: listings.visibility, deletion: listings.deletion)
    }()

    /// The migration: the table with the two columns.
    static func database() throws -> TestDatabase {
        let database = try TestDatabase.create()
        try database.pool.execute("CREATE TABLE listings_extended (LIKE listings INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)")
        try database.pool.execute("""
            ALTER TABLE listings_extended ADD COLUMN floor_area integer,
                ADD COLUMN heating text NOT NULL DEFAULT 'gas' CHECK (heating IN ('gas', 'electric', 'heat_pump'))
            """)
        return database
    }

    static func parse(_ object: [String: JSONValue], complete: Bool) -> (ResourceInput, [FieldError]) {
        var body = JSONRequestBody(object: object, allowed: description.writableKeys, ignored: description.ignoredOnCreate)
        let input = ResourceInputParser.input(&body, description, complete: complete)
        return (input, body.errors)
    }

    static let json: PostgresQuery = "to_jsonb(l)::text AS json"

    static func row(_ rows: PostgresRows) throws -> [String: Any] {
        let text = try #require(rows.first).decode("json", as: String.self)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func anAddedColumnIsParsedStoredPatchedResetAndCompared() throws {
        let database = try Self.database()
        defer { database.drop() }
        let owner = UUID()
        var (input, errors) = Self.parse(["address": .string("1 Main St"), "floor_area": .number(120),
                                          "heating": .string("heat_pump")], complete: true)
        #expect(errors.isEmpty)
        input.set("owned_by", .uuid(owner))
        let created = try Self.row(database.pool.query(
            ResourceWriteSQL.insert(Self.description, alias: "l", id: nil, input: input, returning: Self.json)))
        #expect(created["floor_area"] as? Int == 120)
        #expect(created["heating"] as? String == "heat_pump")
        #expect(created["city"] as? String == "", "a left-out column is stored at its omitted value")
        let id = try #require(UUID(uuidString: created["id"] as? String ?? ""))

        // A replay of the same create matches the row; one with another floor area does not.
        let same = try database.pool.query("""
            SELECT \(input.sameAsRow(Self.description, "l")) AS same FROM listings_extended l WHERE l.id = \(id)
            """)
        #expect(try same[0].decode("same", as: Bool.self))
        var other = input
        other.set("floor_area", .integer(95))
        let different = try database.pool.query("""
            SELECT \(other.sameAsRow(Self.description, "l")) AS same FROM listings_extended l WHERE l.id = \(id)
            """)
        #expect(try !different[0].decode("same", as: Bool.self))

        // PATCH: only what it carries.
        let (patch, patchErrors) = Self.parse(["floor_area": .number(95)], complete: false)
        #expect(patchErrors.isEmpty)
        let patched = try Self.row(database.pool.query(ResourceWriteSQL.update(
            Self.description, alias: "l", id: id, sets: patch.assignments(Self.description, patch: true), returning: Self.json)))
        #expect(patched["floor_area"] as? Int == 95)
        #expect(patched["heating"] as? String == "heat_pump")

        // Replace: what it leaves out goes back to the omitted value; the owner (`.keep`) stays.
        let (replace, replaceErrors) = Self.parse(["address": .string("2 Main St")], complete: true)
        #expect(replaceErrors.isEmpty)
        let replaced = try Self.row(database.pool.query(ResourceWriteSQL.update(
            Self.description, alias: "l", id: id, sets: replace.assignments(Self.description, patch: false), returning: Self.json)))
        #expect(replaced["floor_area"] is NSNull)
        #expect(replaced["heating"] as? String == "gas")
        #expect(replaced["owned_by"] as? String == owner.uuidString.lowercased())
    }

    @Test func anAddedColumnIsCheckedByItsRule() {
        let (_, errors) = Self.parse(["floor_area": .number(-1), "heating": .string("coal")], complete: true)
        #expect(errors.map(\.field) == ["floor_area", "heating", "address"])
        #expect(errors.map(\.code) == ["invalid_value", "invalid_value", "required"])
        #expect(errors.first?.message == "Must be a whole number of square metres ≥ 0.")
        #expect(errors.dropFirst().first?.message == "Must be one of: gas, electric, heat_pump.")
        let (_, typeErrors) = Self.parse(["address": .string("1 Main St"), "floor_area": .string("big"),
                                          "heating": .null], complete: false)
        #expect(typeErrors.map(\.code) == ["invalid_type", "not_nullable"])
    }

    /// Every writable column's omitted value fits the column: a value of its type (an
    /// enumeration's is one of its values), NULL only where the column is nullable.
    @Test(arguments: Resource.allCases)
    func omittedValuesFitTheirColumns(resource: Resource) {
        for column in resource.description.updatableColumns {
            guard case .value(let value) = column.omitted else { continue }
            let fits: Bool
            switch (value, column.type) {
            case (.null, _): fits = column.nullable
            case (.text(let text), .enumeration(let allowed)): fits = allowed.contains(text)
            case (.text, .text), (.uuid, .uuid), (.integer, .integer), (.decimal, .decimal), (.boolean, .boolean),
                 (.timestamp, .timestamp), (.textArray, .textArray): fits = true
            default: fits = false
            }
            #expect(fits, "\(resource.rawValue).\(column.name): \(value)")
        }
    }
}
