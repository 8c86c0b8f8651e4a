import Foundation

/// Locations in the source tree, found from this file's path so tests run from any directory.
enum ProjectPaths {
    static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static let migrations = root + "/migrations"
}
