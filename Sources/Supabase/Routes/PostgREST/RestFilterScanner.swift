/// A cursor over the characters of a logic tree or an `in` list.
struct RestFilterScanner {
    private let characters: [Character]
    private var index = 0

    init(_ characters: [Character]) {
        self.characters = characters
    }

    var atEnd: Bool { index >= characters.count }

    func peek(_ text: String) -> Bool {
        var position = index
        for character in text {
            guard position < characters.count, characters[position] == character else { return false }
            position += 1
        }
        return true
    }

    mutating func take(_ character: Character) -> Bool {
        guard index < characters.count, characters[index] == character else { return false }
        index += 1
        return true
    }

    mutating func advance(by count: Int = 1) {
        index = min(characters.count, index + count)
    }

    mutating func read(while accept: (Character) -> Bool) -> String {
        let start = index
        while index < characters.count, accept(characters[index]) { index += 1 }
        return String(characters[start..<index])
    }

    /// A value up to one of `stops`: either double-quoted (`\` escapes the next character;
    /// the quotes are removed) or plain.
    mutating func value(stopAt stops: Set<Character>, raw: String) throws -> String {
        guard take("\"") else { return read { !stops.contains($0) } }
        var result = ""
        while index < characters.count {
            let character = characters[index]
            index += 1
            if character == "\\", index < characters.count {
                result.append(characters[index])
                index += 1
            } else if character == "\"" {
                return result
            } else {
                result.append(character)
            }
        }
        throw RestError.badQuery("failed to parse filter (\(raw))", details: "unterminated quoted value")
    }

    /// `(…)` with quotes respected, returned with its parentheses (an `in` list in a tree).
    mutating func parenthesised(raw: String) throws -> String {
        guard index < characters.count, characters[index] == "(" else {
            throw RestError.badQuery("failed to parse filter (\(raw))", details: "in expects a list: in.(a,b,c)")
        }
        let start = index
        var quoted = false
        while index < characters.count {
            let character = characters[index]
            index += 1
            if quoted && character == "\\" { index += 1; continue }
            if character == "\"" { quoted.toggle() }
            if character == ")" && !quoted { return String(characters[start..<index]) }
        }
        throw RestError.badQuery("failed to parse filter (\(raw))", details: "unterminated list")
    }
}
