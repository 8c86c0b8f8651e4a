import Domain
import Foundation
import Testing

/// Every column a resource's description calls `.writable` travels through `/v1` both ways:
/// a create stores the value sent and a PATCH changes it. Generated from the descriptions, so
/// a column added to the table and the description but forgotten by the input parser (accepted
/// and silently dropped, or reset by the next PUT) fails here.
@Suite(.serialized) final class WritableColumnRoundTripTests {
    static let resources: [Resource] = [.listings, .tasks, .activities, .notes, .subtasks]

    let world: ResourceWorld
    let parentTask: String
    let listing: String

    init() throws {
        world = try ResourceWorld(extraRoles: [.owner])
        let task = try world.request("POST", "/v1/tasks", as: .admin, json: ["title": "Parent"])
        parentTask = task.json?["id"] as? String ?? ""
        let listing = try world.request("POST", "/v1/listings", as: .admin, json: ["address": "9 Side St"])
        self.listing = listing.json?["id"] as? String ?? ""
    }

    @Test(arguments: resources)
    func everyWritableColumnIsStoredOnCreateAndChangedByPatch(resource: Resource) throws {
        let description = resource.description
        #expect(!description.updatableColumns.isEmpty)
        for column in description.updatableColumns {
            let (first, second) = try #require(values(for: column), "no test values for \(resource.rawValue).\(column.name)")
            var body = base(resource)
            body[column.name] = first
            let created = try world.request("POST", "/v1/\(resource.rawValue)", as: .admin, json: body)
            #expect(created.status == 201, "create with \(column.name): \(created.json ?? [:])")
            let id = created.json?["id"] as? String ?? ""
            #expect(same(created.json?[column.name], first), "\(resource.rawValue).\(column.name) on create")

            let patched = try world.request("PATCH", "/v1/\(resource.rawValue)/\(id)", as: .admin, json: [column.name: second])
            #expect(patched.status == 200, "patch of \(column.name): \(patched.json ?? [:])")
            #expect(same(patched.json?[column.name], second), "\(resource.rawValue).\(column.name) on patch")

            let read = try world.request("GET", "/v1/\(resource.rawValue)/\(id)", as: .admin)
            #expect(same(read.json?[column.name], second), "\(resource.rawValue).\(column.name) stored")
        }
    }

    /// A `PUT` stores every writable column: one it leaves out goes back to the description's
    /// omitted value (or, for `.keep`, stays), so no column is silently kept or reset by a
    /// hand-written list. Listings, tasks and activities: the rows `PUT` replaces.
    @Test(arguments: [Resource.listings, .tasks, .activities])
    func everyWritableColumnLeftOutOfAReplaceGoesBackToItsOmittedValue(resource: Resource) throws {
        for column in resource.description.updatableColumns where base(resource)[column.name] == nil {
            let (first, _) = try #require(values(for: column), "no test values for \(resource.rawValue).\(column.name)")
            var body = base(resource)
            body[column.name] = first
            let created = try world.request("POST", "/v1/\(resource.rawValue)", as: .admin, json: body)
            #expect(created.status == 201, "create with \(column.name): \(created.json ?? [:])")
            let id = created.json?["id"] as? String ?? ""
            let replaced = try world.request("PUT", "/v1/\(resource.rawValue)/\(id)", as: .admin, json: base(resource))
            #expect(replaced.status == 200, "replace without \(column.name): \(replaced.json ?? [:])")
            switch column.omitted {
            case .value(.null): #expect(same(replaced.json?[column.name], NSNull()), "\(resource.rawValue).\(column.name) reset")
            case .value(.text(let text)): #expect(same(replaced.json?[column.name], text), "\(resource.rawValue).\(column.name) reset")
            case .value(let other): Issue.record("no JSON for the omitted value \(other) of \(column.name)")
            case .keep: #expect(same(replaced.json?[column.name], first), "\(resource.rawValue).\(column.name) kept")
            case .required: Issue.record("\(resource.rawValue).\(column.name) is required but not in the base body")
            }
        }
    }

    /// The fields a create of `resource` needs besides the column under test.
    func base(_ resource: Resource) -> [String: Any] {
        switch resource {
        case .listings: ["address": "1 Main St"]
        case .tasks, .activities: ["title": "Call the buyer"]
        case .notes: ["parent_type": "task", "parent_id": parentTask, "content": "A note"]
        case .subtasks: ["parent_type": "task", "parent_id": parentTask, "title": "A step"]
        default: [:]
        }
    }

    /// Two different valid values of `column` (neither the column's default), as JSON.
    func values(for column: ColumnDescription) -> (Any, Any)? {
        switch (column.type, column.name) {
        case (.uuid, "owned_by"), (.uuid, "assigned_staff"): (world.id(.owner), world.id(.admin))
        case (.uuid, "listing_id"): (listing, NSNull())
        case (.uuid, _): nil
        case (.text, _): ("\(column.name) one", "\(column.name) two")
        case (.enumeration(let allowed), _):
            // Not the first value (usually the default) and never `deleted` (that is DELETE).
            Self.twoValues(allowed.filter { $0 != "deleted" })
        case (.integer, _): (3600, 7200)
        case (.decimal, _): (250000.5, 1234.25)
        case (.boolean, _): (true, false)
        case (.timestamp, _): ("2031-05-06T07:08:09.123Z", "2032-01-02T03:04:05.678Z")
        case (.textArray, _): (["first", "second"], ["third"])
        }
    }

    static func twoValues(_ allowed: [String]) -> (Any, Any)? {
        guard allowed.count >= 2 else { return nil }
        return (allowed[allowed.count - 1], allowed[allowed.count - 2])
    }

    func same(_ actual: Any?, _ expected: Any) -> Bool {
        switch expected {
        case is NSNull: return actual == nil || actual is NSNull
        case let text as String: return actual as? String == text
        case let flag as Bool: return actual as? Bool == flag
        case let number as Int: return (actual as? NSNumber)?.intValue == number
        case let number as Double: return (actual as? NSNumber)?.doubleValue == number
        case let list as [String]: return actual as? [String] == list
        default: return false
        }
    }
}
