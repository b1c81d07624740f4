import PropertyList

extension ArchiveSchema {
    /// The kinds under a key as one line: `NSArray of Airplane | Glider | $null`.
    public func kindSummary(of key: Key) -> String {
        var parts: [String] = []
        for kind in key.kinds.kinds {
            var text = kind.description
            if case .object(let name) = kind, let contents = key.contents.first(where: { $0.className == name }) {
                let elements = contents.elements.kinds.map(\.description).joined(separator: " | ")
                if !contents.keys.isEmpty {
                    text += " of \(contents.keys.kinds.map(\.description).joined(separator: " | ")) → \(elements.isEmpty ? "nothing" : elements)"
                } else if !elements.isEmpty {
                    text += " of \(elements)"
                } else {
                    text += " (empty)"
                }
                if contents.isTruncated { text += " | …" }
            }
            if key.kinds.kinds.count > 1, let count = key.kinds.counts[kind] { text += " ×\(count)" }
            parts.append(text)
        }
        return parts.joined(separator: " | ")
    }

    /// The readable report `keyedarchive schema` prints. Text taken from the archives (class
    /// names, keys) is escaped, so a hostile file cannot drive the terminal.
    public var textDescription: String {
        var text = "\(archiveCount) archive\(archiveCount == 1 ? "" : "s"), \(objectCount) objects, \(classes.filter { $0.instanceCount > 0 }.count) classes with instances\n"
        text += "\n$top\n"
        for key in topKeys {
            text += "  \(key.storedKey.escapedForMessage)  \(presence(key.presentCount, of: archiveCount))  \(kindSummary(of: key).escapedForMessage)\n"
        }
        for type in classes where type.name != "NSObject" {
            text += "\nclass \(type.name.escapedForMessage)"
            var facts: [String] = ["\(type.instanceCount) instance\(type.instanceCount == 1 ? "" : "s")"]
            if type.sharedCount > 0 { facts.append("\(type.sharedCount) shared") }
            if type.isFoundation { facts.append("Foundation") }
            text += " (\(facts.joined(separator: ", ")))\n"
            for chain in type.chains {
                text += "  chain: \(chain.map(\.escapedForMessage).joined(separator: " < "))\n"
            }
            if let superclass = type.superclass { text += "  superclass: \(superclass.escapedForMessage)\n" }
            if !type.subclasses.isEmpty { text += "  subclasses: \(type.subclasses.map(\.escapedForMessage).joined(separator: ", "))\n" }
            let width = min(32, type.keys.map { $0.storedKey.count }.max() ?? 0)
            for key in type.keys {
                let name = key.storedKey.escapedForMessage
                let padding = String(repeating: " ", count: max(0, width - name.count))
                text += "  \(name)\(padding)  \(presence(key.presentCount, of: type.instanceCount))  \(kindSummary(of: key).escapedForMessage)\n"
            }
            for key in type.declaredKeys where key.cycleCount > 0 || key.isBackReference {
                var line = "  back-reference: \(key.storedKey.escapedForMessage)"
                if key.cycleCount > 0 { line += " closes \(key.cycleCount) cycle\(key.cycleCount == 1 ? "" : "s")" }
                text += line + " (decoded once the graph is built)\n"
            }
        }
        if unattributedCycleCount > 0 {
            text += "\n\(unattributedCycleCount) reference(s) close a cycle inside Foundation collections reached from $top\n"
        }
        return text
    }

    private func presence(_ present: Int, of total: Int) -> String {
        present >= total ? "required" : "optional (\(present) of \(total))"
    }

    /// A JSON string literal: quotes, backslashes, controls, separators and bidi controls
    /// escaped, so the output stays one valid document whatever the archive's names. The tool's
    /// other JSON outputs (`diff --json`) quote their strings with it too.
    package static func jsonString(_ text: String) -> String {
        quoted(text) { scalar in
            // Every scalar escaped here is below U+10000, so four digits always do.
            let hex = String(scalar.value, radix: 16, uppercase: false)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    /// A Swift string literal of `text`: escapes for quotes, backslashes, controls, separators
    /// and bidirectional controls, so the literal is exactly the archive's text. The generated
    /// models use it, and so do KeyedArchiveTesting's ready-to-paste `ignoring:` lists.
    package static func swiftString(_ text: String) -> String {
        // Other format characters (zero-width joiners, soft hyphens…) are invisible in
        // source too: escaped, a reader sees them.
        quoted(text, alsoEscapes: { !$0.isASCII && $0.properties.generalCategory == .format }) { scalar in
            "\\u{\(String(scalar.value, radix: 16))}"
        }
    }

    /// `text` in double quotes, with quotes, backslashes and the three common controls escaped
    /// as `\"`, `\\`, `\n`, `\r`, `\t` (JSON and Swift spell them alike), and every other scalar
    /// ``isInvisible(_:)`` admits, or that `alsoEscapes` asks for, written by `hex`: the one
    /// escaping both the JSON and the Swift renderers use.
    static func quoted(_ text: String, alsoEscapes: (Unicode.Scalar) -> Bool = { _ in false },
                       hex: (Unicode.Scalar) -> String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if isInvisible(scalar) || alsoEscapes(scalar) {
                    out += hex(scalar)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Controls, line and paragraph separators, bidirectional controls and U+FEFF: scalars that
    /// would break a line or reorder what a reader sees if written as themselves.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0xFEFF
    }
}
