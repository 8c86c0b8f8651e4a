import Foundation
import Testing
@testable import dispatchd

/// docs/operators/configuration.md against the code: the settings `dispatchd` reads are exactly
/// `Setting.allCases` (`EnvironmentReader` takes nothing else), and the reference must list
/// each of them once and nothing more.
@Suite struct ConfigurationReferenceTests {
    static let referencePath = "docs/operators/configuration.md"

    @Test func everySettingTheServerReadsHasARowInTheReference() throws {
        let documented = Set(try Self.documentedSettings().map(\.name))
        let missing = Setting.allCases.map(\.name).filter { !documented.contains($0) }
        #expect(missing.isEmpty, "\(Self.referencePath) has no row for \(missing.joined(separator: ", ")); add `| \\`NAME\\` | default | meaning |`")
    }

    @Test func theReferenceListsNoSettingTheServerDoesNotRead() throws {
        let read = Set(Setting.allCases.map(\.name))
        let stale = try Self.documentedSettings().map(\.name).filter { !read.contains($0) }
        #expect(stale.isEmpty, "\(Self.referencePath) documents \(stale.joined(separator: ", ")), which dispatchd does not read (Setting.swift)")
    }

    @Test func eachSettingHasOneRowWithADefaultAndAMeaning() throws {
        let rows = try Self.documentedSettings()
        let names = rows.map(\.name)
        let repeated = Set(names.filter { name in names.filter { $0 == name }.count > 1 })
        #expect(repeated.isEmpty, "rows repeated in \(Self.referencePath): \(repeated.sorted())")
        let incomplete = rows.filter { $0.defaultValue.isEmpty || $0.meaning.isEmpty }.map(\.name)
        #expect(incomplete.isEmpty, "rows without a default or a meaning: \(incomplete)")
    }

    struct Row {
        var name: String
        var defaultValue: String
        var meaning: String
    }

    /// The rows of every table whose header starts `| Setting |`, whose first cell is one
    /// code span holding a variable name (`| \`PORT\` | \`8080\` | … |`).
    static func documentedSettings() throws -> [Row] {
        var rows: [Row] = []
        var inSettingsTable = false
        for line in try DeploymentFiles.text(referencePath).split(separator: "\n", omittingEmptySubsequences: false) {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                .dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
            guard line.hasPrefix("|"), cells.count >= 3 else { inSettingsTable = false; continue }
            if cells[0].lowercased() == "setting" { inSettingsTable = true; continue }
            guard inSettingsTable, !cells[0].hasPrefix("---") else { continue }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            guard cells[0].hasPrefix("`"), cells[0].hasSuffix("`"),
                  name.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }) else { continue }
            rows.append(Row(name: name, defaultValue: cells[1], meaning: cells[2...].joined(separator: "|")))
        }
        return rows
    }
}
