/// Text taken from an input (a class name, a key, an XML excerpt) as it may appear inside an
/// error message: every message stays one line and cannot drive a terminal, whatever the input
/// holds (Docs/Security.md, "Error messages").
///
/// Escaped, in the JSON spelling `keyedarchive dump` uses for strings (`\n`, `\r`, `\t`, else
/// `\u001b`): the C0 controls (newline, tab and ESC among them), DEL, the C1 controls
/// U+0080–U+009F, the line and paragraph separators U+2028/U+2029, and the bidirectional
/// controls (Unicode's Bidi_Control: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
/// Everything else, `é` and `飛行機` included, is kept as it is, and so is the backslash: the
/// escape is idempotent (escaping an escaped text changes nothing), so a message built from
/// escaped parts can be passed through it once more as a safety net.
extension StringProtocol {
    @usableFromInline
    package var escapedForMessage: String {
        guard unicodeScalars.contains(where: MessageText.needsEscape) else { return String(self) }
        var text = ""
        text.unicodeScalars.reserveCapacity(unicodeScalars.count + 16)
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0x0A: text += "\\n"
            case 0x0D: text += "\\r"
            case 0x09: text += "\\t"
            case _ where MessageText.needsEscape(scalar):
                text += "\\u"
                for shift in stride(from: 12, through: 0, by: -4) {
                    text.unicodeScalars.append(MessageText.hexDigits[Int(scalar.value >> UInt32(shift) & 0xF)])
                }
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}

extension StringProtocol {
    /// At most `limit` Unicode scalars of the text, escaped, with `…` when it was cut: an
    /// excerpt whose length does not depend on the input (a `Character` can hold any number of
    /// combining scalars, so cutting by characters would not bound it).
    @usableFromInline
    package func excerptForMessage(_ limit: Int) -> String {
        let scalars = unicodeScalars
        guard scalars.count > limit else { return escapedForMessage }
        var cut = String.UnicodeScalarView()
        cut.append(contentsOf: scalars.prefix(limit))
        return String(cut).escapedForMessage + "…"
    }
}

package enum MessageText {
    fileprivate static let hexDigits = Array("0123456789abcdef".unicodeScalars)

    /// Whether a scalar is one ``StringProtocol/escapedForMessage`` escapes (all of them are
    /// in the Basic Multilingual Plane, so four hex digits always suffice).
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
