import Domain
import Foundation
import Testing

/// openapi.yaml's schema of each synced resource (`components.schemas.Listing`, …) says what
/// the resource's description says: the same properties, each with the JSON type and format of
/// its column type, `null` allowed exactly for nullable columns, the CHECK constraint's enum
/// values, and `readOnly: true` exactly on the columns only the server writes.
@Suite struct OpenAPIResourceSchemaTests {
    static let schemaNames: [Resource: String] = [
        .users: "User", .listings: "Listing", .tasks: "Task", .activities: "Activity", .notes: "Note",
        .subtasks: "Subtask", .claimEvents: "ClaimEvent", .statusChanges: "StatusChange",
    ]

    /// One property as openapi.yaml writes it: a flow mapping on one line.
    struct Property {
        var types: Set<String> = []
        var format: String?
        var enumValues: [String]?
        var readOnly = false
    }

    /// The `components.schemas` entries: property name → its flow mapping text, per schema,
    /// plus the one-line schemas (`UserType: { … }`) that properties `$ref`.
    static func schemas() throws -> (objects: [String: [String: String]], inline: [String: String]) {
        var objects: [String: [String: String]] = [:]
        var inline: [String: String] = [:]
        var inSchemas = false, inProperties = false
        var current: String?
        for line in try DeploymentFiles.text("openapi.yaml").split(separator: "\n").map(String.init) {
            let indent = line.prefix { $0 == " " }.count
            let content = line.dropFirst(indent)
            if indent <= 2 { inSchemas = line == "  schemas:"; current = nil; continue }
            guard inSchemas, let colon = content.firstIndex(of: ":") else { continue }
            let key = String(content[..<colon])
            let rest = content[content.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch indent {
            case 4:
                current = key
                inProperties = false
                if rest.hasPrefix("{") { inline[key] = rest } else { objects[key] = [:] }
            case 6: inProperties = key == "properties"
            case 8 where inProperties: if let current { objects[current]?[key] = rest }
            default: break
            }
        }
        return (objects, inline)
    }

    /// The keys this test reads from a flow mapping; `$ref`s are followed into `inline`.
    static func property(_ text: String, inline: [String: String]) -> Property {
        var property = Property()
        if let ref = value("$ref", in: text)?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")),
           let name = ref.split(separator: "/").last.map(String.init),
           let target = inline[name] {
            property = Self.property(target, inline: inline)
        }
        if let type = value("type", in: text) {
            property.types = Set(list(type) ?? [type])
        }
        property.format = value("format", in: text) ?? property.format
        property.enumValues = value("enum", in: text).flatMap(list) ?? property.enumValues
        property.readOnly = value("readOnly", in: text) == "true"
        return property
    }

    /// The value of `key` at the top level of a one-line flow mapping (brackets kept).
    static func value(_ key: String, in text: String) -> String? {
        let body = text.trimmingCharacters(in: CharacterSet(charactersIn: "{} "))
        var depth = 0, start = body.startIndex
        var entries: [Substring] = []
        var quoted = false
        for index in body.indices {
            switch body[index] {
            case "\"": quoted.toggle()
            case "[", "{": if !quoted { depth += 1 }
            case "]", "}": if !quoted { depth -= 1 }
            case "," where depth == 0 && !quoted:
                entries.append(body[start..<index])
                start = body.index(after: index)
            default: break
            }
        }
        entries.append(body[start...])
        for entry in entries {
            let parts = entry.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == key else { continue }
            return parts[1].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// `[a, "b"]` → ["a", "b"]; nil when not a list.
    static func list(_ text: String) -> [String]? {
        guard text.hasPrefix("["), text.hasSuffix("]") else { return nil }
        return text.dropFirst().dropLast().split(separator: ",").map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: " \""))
        }
    }

    /// The JSON type and format a column type travels as.
    static func expected(_ type: ColumnType) -> (type: String, format: String?) {
        switch type {
        case .uuid: ("string", "uuid")
        case .text, .enumeration: ("string", nil)
        case .integer: ("integer", nil)
        case .decimal: ("number", nil)
        case .boolean: ("boolean", nil)
        case .timestamp: ("string", "date-time")
        case .textArray: ("array", nil)
        }
    }

    @Test(arguments: Resource.allCases)
    func schemaMatchesTheDescription(resource: Resource) throws {
        let (objects, inline) = try Self.schemas()
        let name = try #require(Self.schemaNames[resource])
        let properties = try #require(objects[name], "openapi.yaml has no schema \(name)")
        let description = resource.description
        #expect(Set(properties.keys) == Set(description.columns.map(\.name)), "\(name): properties ≠ columns")
        for column in description.columns {
            guard let text = properties[column.name] else { continue }
            let property = Self.property(text, inline: inline)
            let (type, format) = Self.expected(column.type)
            let nullable = column.nullable ? Set([type, "null"]) : Set([type])
            #expect(property.types == nullable, "\(name).\(column.name): type \(property.types), expected \(nullable.sorted())")
            #expect(property.format == format, "\(name).\(column.name): format \(property.format ?? "none")")
            if case .enumeration(let values) = column.type {
                #expect(property.enumValues == values, "\(name).\(column.name): enum \(property.enumValues ?? [])")
            } else {
                #expect(property.enumValues == nil, "\(name).\(column.name): unexpected enum")
            }
            #expect(property.readOnly == (column.access == .server),
                    "\(name).\(column.name): readOnly must be \(column.access == .server)")
        }
    }
}
