import Domain
import Foundation
import HTTPServer
import Store

/// JSON objects → validated listing / work-item inputs, for the resource routes and for a
/// sync push's records (`JSONRequestBody(object:…)`). The keys come from the resources'
/// descriptions (`Resource+Catalog.swift`): writable columns are read, server-written ones a
/// client sends back are ignored (contract §4), anything else is a 422. `claimed_by` is read
/// separately because it may be sent back unchanged but never changed (contract §2, 3).
enum ResourceInputParser {
    static let listingFields = Resource.listings.description.writableKeys
    static let listingIgnored = Resource.listings.description.ignoredOnCreate

    static func workItemFields(_ kind: WorkItemKind) -> Set<String> {
        (kind == .task ? Resource.tasks : Resource.activities).description.writableKeys.union(["claimed_by"])
    }

    /// The same for tasks and activities.
    static let workItemIgnored = Resource.tasks.description.ignoredOnCreate.subtracting(["claimed_by"])

    /// The fields of a listing body; call `body.finish()` afterwards. `complete` (create and
    /// replace) requires the fields without a default.
    static func listing(_ body: inout JSONRequestBody, complete: Bool) -> ListingInput {
        var input = ListingInput()
        func mark(_ field: ListingInput.Field, _ present: Bool) { if present { input.provided.insert(field) } }
        let short = FieldRules.shortTextMaximum
        if let value = body.text("address", maximum: FieldRules.titleMaximum, nullable: false, allowBlank: false) {
            input.address = value ?? ""; mark(.address, true)
        }
        if let value = body.text("city", maximum: short, nullable: false) { input.city = value ?? ""; mark(.city, true) }
        if let value = body.text("province", maximum: short, nullable: false) { input.province = value ?? ""; mark(.province, true) }
        if let value = body.text("postal_code", maximum: short, nullable: false) { input.postalCode = value ?? ""; mark(.postalCode, true) }
        if let value = body.text("country", maximum: short, nullable: false) { input.country = value ?? ""; mark(.country, true) }
        if let value = body.price("price") { input.price = value; mark(.price, true) }
        if let value = body.text("mls_number", maximum: short, nullable: true) { input.mlsNumber = value; mark(.mlsNumber, true) }
        if let value = body.enumeration("listing_type", ListingType.self) { input.listingType = value; mark(.listingType, true) }
        if let value = body.enumeration("status", ListingStatus.self) { input.status = value; mark(.status, true) }
        if let value = body.uuid("owned_by", nullable: false) { input.ownedBy = value; mark(.ownedBy, true) }
        if let value = body.uuid("assigned_staff", nullable: true) { input.assignedStaff = value; mark(.assignedStaff, true) }
        if let value = body.enumeration("created_via", CreatedVia.self) { input.createdVia = value; mark(.createdVia, true) }
        if let value = body.strings("source_slack_messages") { input.sourceSlackMessages = value; mark(.sourceSlackMessages, true) }
        if complete, !body.contains("address") { body.add(required("address")) }
        return input
    }

    /// The fields of a task or activity body; call `body.finish()` afterwards. `complete`
    /// (create and replace) requires the fields without a default.
    static func workItem(_ body: inout JSONRequestBody, kind: WorkItemKind, complete: Bool) -> WorkItemInput {
        var input = WorkItemInput()
        func mark(_ field: WorkItemInput.Field) { input.provided.insert(field) }
        if let value = body.text("title", maximum: FieldRules.titleMaximum, nullable: false, allowBlank: false) {
            input.title = value ?? ""; mark(.title)
        }
        if let value = body.text("description", maximum: FieldRules.descriptionMaximum, nullable: true) {
            input.description = value; mark(.description)
        }
        if let value = body.dueDate("due_date") { input.dueDate = value; mark(.dueDate) }
        if let value = body.enumeration("priority", Priority.self) { input.priority = value; mark(.priority) }
        if let value = body.enumeration("status", WorkItemStatus.self) { input.status = value; mark(.status) }
        if let value = body.uuid("listing_id", nullable: true) { input.listingID = value; mark(.listingID) }
        if let value = body.enumeration("created_via", CreatedVia.self) { input.createdVia = value; mark(.createdVia) }
        if let value = body.strings("source_slack_messages") { input.sourceSlackMessages = value; mark(.sourceSlackMessages) }
        if kind == .activity {
            if let value = body.enumeration("type", ActivityType.self) { input.type = value; mark(.type) }
            if let value = body.duration("duration_seconds") { input.durationSeconds = value; mark(.durationSeconds) }
        }
        if let value = body.uuid("claimed_by", nullable: true) { input.claimedBy = .some(value) }
        if complete, !body.contains("title") { body.add(required("title")) }
        return input
    }

    static func required(_ field: String) -> FieldError {
        FieldError(field: field, code: .required, message: "Is required.")
    }

    /// The `id` of a create body: nil when absent (the server picks one).
    static func id(_ body: inout JSONRequestBody) -> UUID? {
        body.uuid("id", nullable: false) ?? nil
    }

    /// On `PUT`/`PATCH` a body `id` is server-managed: ignored when it equals the path's, refused otherwise.
    static func checkBodyID(_ body: inout JSONRequestBody, path id: UUID) {
        if let sent = body.uuid("id", nullable: false) ?? nil, sent != id {
            body.add(FieldError(field: "id", code: .idMismatch, message: "Must match the id in the path (or be left out)."))
        }
    }
}
