/// One-dimensional array literals: `{a,"b c","q\"uote",NULL}`.
enum PostgresArrayLiteral {
    /// Quotes every element so that commas, braces, quotes, backslashes, whitespace, empty
    /// strings and the text "NULL" all stay data; nil becomes an unquoted NULL.
    static func encode(_ elements: [String?]) -> String {
        var out = "{"
        for (index, element) in elements.enumerated() {
            if index > 0 { out += "," }
            guard let element else {
                out += "NULL"
                continue
            }
            out += "\""
            for character in element {
                if character == "\"" || character == "\\" { out += "\\" }
                out.append(character)
            }
            out += "\""
        }
        return out + "}"
    }

    /// Parses the server's output format. Returns nil for malformed or multi-dimensional input.
    static func parse(_ text: String) -> [String?]? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else { return nil }
        var elements: [String?] = []
        var index = 1
        let end = bytes.count - 1
        if index == end { return [] }
        while true {
            guard index < end else { return nil }
            if bytes[index] == UInt8(ascii: "\"") {
                var element: [UInt8] = []
                index += 1
                while true {
                    guard index < end else { return nil }
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "\\") {
                        guard index + 1 < end else { return nil }
                        element.append(bytes[index + 1])
                        index += 2
                    } else if byte == UInt8(ascii: "\"") {
                        index += 1
                        break
                    } else {
                        element.append(byte)
                        index += 1
                    }
                }
                elements.append(String(decoding: element, as: UTF8.self))
            } else {
                let start = index
                while index < end, bytes[index] != UInt8(ascii: ",") {
                    // Nested braces mean a multi-dimensional array, which is not supported.
                    if bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "\"") { return nil }
                    index += 1
                }
                let raw = String(decoding: bytes[start..<index], as: UTF8.self)
                if raw.isEmpty { return nil }
                elements.append(raw.uppercased() == "NULL" ? nil : raw)
            }
            if index == end { return elements }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }
}
