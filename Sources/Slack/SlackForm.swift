/// `application/x-www-form-urlencoded`, as Slack posts slash commands and interactivity:
/// `+` is a space, `%XX` a byte; a malformed escape or invalid UTF-8 refuses the whole body.
package enum SlackForm {
    package static func parse(_ bytes: [UInt8]) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : []) else { return nil }
            fields[name] = value
        }
        return fields
    }

    static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex,
                      let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) else { return nil }
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        guard let text = String(validating: out, as: UTF8.self), !text.utf8.contains(0) else { return nil }
        return text
    }

    static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
