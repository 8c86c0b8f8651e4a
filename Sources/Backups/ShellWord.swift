import Foundation

/// A word for a POSIX shell, for commands the console shows to be pasted into a terminal:
/// left as is when it holds only safe characters, else single-quoted.
package enum ShellWord {
    package static func quoted(_ word: String) -> String {
        let safe = word.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-+=:,@".unicodeScalars.contains($0) }
        return safe && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
