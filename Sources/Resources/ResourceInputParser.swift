import Domain
import Foundation
import HTTPServer
import RouteKit
import Store

/// JSON objects → validated listing / work-item inputs, for the resource routes and for a
/// sync push's records (`JSONRequestBody(object:…)`). The keys come from the resources'
/// descriptions (`Resource+Catalog.swift`): writable columns are read, server-written ones a
/// client sends back are ignored (contract §4), anything else is a 422. `claimed_by` is read
/// separately because it may be sent back unchanged but never changed (contract §2, 3).
package enum ResourceInputParser {
    package static let listingFields = Resource.listings.description.writableKeys
    package static let listingIgnored = Resource.listings.description.ignoredOnCreate

    package static func workItemFields(_ kind: WorkItemKind) -> Set<String> {
        (kind == .task ? Resource.tasks : Resource.activities).description.writableKeys.union(["claimed_by"])
    }

    /// The same for tasks and activities.
    package static let workItemIgnored = Resource.tasks.description.ignoredOnCreate.subtracting(["claimed_by"])

    /// The fields of a listing body; call `body.finish()` afterwards. `complete` (create and
    /// replace) requires the fields without a default.
    package static func listing(_ body: inout JSONRequestBody, complete: Bool) -> ListingInput {
        input(&body, .listings, complete: complete)
    }

    /// The fields of a task or activity body; call `body.finish()` afterwards. `complete`
    /// (create and replace) requires the fields without a default.
    package static func workItem(_ body: inout JSONRequestBody, kind: WorkItemKind, complete: Bool) -> WorkItemInput {
        var input = input(&body, kind == .task ? .tasks : .activities, complete: complete)
        if let value = body.columnValue(claimedBy) { input.echoed["claimed_by"] = value }
        return input
    }

    /// Every client-writable column of `resource` the body carries, checked by the column's
    /// rule; with `complete`, a `.required` column left out is reported.
    package static func input(_ body: inout JSONRequestBody, _ resource: Resource, complete: Bool) -> ResourceInput {
        input(&body, resource.description, complete: complete)
    }

    /// The same for any description (tests drive changed copies through it).
    package static func input(_ body: inout JSONRequestBody, _ description: ResourceDescription, complete: Bool) -> ResourceInput {
        var input = ResourceInput(description)
        for column in input.description.updatableColumns {
            if let value = body.columnValue(column) { input.set(column.name, value) }
        }
        if complete {
            for column in input.description.updatableColumns where column.omitted == .required && !body.contains(column.name) {
                body.add(required(column.name))
            }
        }
        return input
    }

    /// `claimed_by` as a client may send it back: server-written, read only to compare.
    private static let claimedBy = Resource.tasks.description.column("claimed_by")
        ?? ColumnDescription("claimed_by", .uuid, nullable: true, access: .server)

    package static func required(_ field: String) -> FieldError {
        FieldError(field: field, code: .required, message: "Is required.")
    }

    /// The `id` of a create body: nil when absent (the server picks one).
    package static func id(_ body: inout JSONRequestBody) -> UUID? {
        body.uuid("id", nullable: false) ?? nil
    }

    /// On `PUT`/`PATCH` a body `id` is server-managed: ignored when it equals the path's, refused otherwise.
    package static func checkBodyID(_ body: inout JSONRequestBody, path id: UUID) {
        if let sent = body.uuid("id", nullable: false) ?? nil, sent != id {
            body.add(FieldError(field: "id", code: .idMismatch, message: "Must match the id in the path (or be left out)."))
        }
    }
}
