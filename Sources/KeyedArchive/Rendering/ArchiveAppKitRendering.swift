import PropertyList

// AppKit's value objects — what every nib, document and terminal profile holds — shown by
// `dump` and `json` as the values they stand for, read from the fields AppKit archives (learned
// from the Apple-made nibs, Core Data layouts and Terminal profiles of the corpus). They are
// only shown: nothing decodes them to a Swift type (AppKit is not there on Linux), and
// `--raw` shows their fields.

extension ArchiveFoundationInterpreter {
    /// The AppKit classes shown as values.
    static let appKitValueClasses: Set<String> = ["NSColor", "NSFont", "NSParagraphStyle", "NSMutableParagraphStyle"]

    /// How an AppKit value object is shown; `.malformed` when its fields do not read as one.
    func appKitRendering(className: String, fields: PropertyListDictionary) -> ArchiveFoundationRendering {
        do throws(ArchiveError) {
            switch className {
            case "NSColor": return .text(kind: "color", try color(fields))
            case "NSFont": return .text(kind: "font", try font(fields))
            default: return .text(kind: "paragraphStyle", try paragraphStyle(fields))
            }
        } catch {
            return .malformed(error.message)
        }
    }

    /// `NSColorSpace` and the numbers of that space (`NSRGB`, `NSWhite`, `NSCMYK`: text of decimal
    /// numbers, alpha last when there is one), or a catalog colour's names; a colour with a
    /// colour-space object of its own adds its `NSComponents` and the space's `NSID`.
    private func color(_ fields: PropertyListDictionary) throws(ArchiveError) -> String {
        guard case .integer(let stored)? = fields["NSColorSpace"], let space = stored.int64Value else {
            throw ArchiveError(.valueNotFound, "NSColorSpace is not an integer")
        }
        var text: String
        switch space {
        case 1, 2: text = (space == 1 ? "calibratedRGB " : "deviceRGB ") + (try numbers(fields, "NSRGB"))
        case 3, 4: text = (space == 3 ? "calibratedWhite " : "deviceWhite ") + (try numbers(fields, "NSWhite"))
        case 5: text = "deviceCMYK " + (try numbers(fields, "NSCMYK"))
        case 6:
            guard let catalog = string(fields["NSCatalogName"]), let name = string(fields["NSColorName"]) else {
                throw ArchiveError(.valueNotFound, "a catalog colour without NSCatalogName and NSColorName strings")
            }
            text = "catalog \(catalog) \(name)"
        default:
            throw ArchiveError(.valueOutOfRange, "NSColorSpace \(space) is not a colour space shown as a value")
        }
        if fields["NSComponents"] != nil, let components = try? numbers(fields, "NSComponents") {
            text += " (components \(components)"
            if case .uid(let uid)? = fields["NSCustomColorSpace"], case .instance(let space)? = graph.object(uid), case .integer(let id)? = space.storage["NSID"] {
                text += ", colour space NSID \(id)"
            }
            text += ")"
        }
        return text
    }

    /// `NSName` and `NSSize`.
    private func font(_ fields: PropertyListDictionary) throws(ArchiveError) -> String {
        guard let name = string(fields["NSName"]) else { throw ArchiveError(.valueNotFound, "NSName is not a string") }
        guard let size = real(fields["NSSize"]) else { throw ArchiveError(.valueNotFound, "NSSize is not a number") }
        return "\(name) \(RenderBuffer.realText(size))"
    }

    /// `NSAlignment` (macOS's `NSTextAlignment`), the `NSLocation` of each `NSTextTab` of
    /// `NSTabStops`, then every other number or boolean stored inline.
    private func paragraphStyle(_ fields: PropertyListDictionary) throws(ArchiveError) -> String {
        var parts: [String] = []
        if let stored = fields["NSAlignment"] {
            guard case .integer(let value) = stored, let alignment = value.int64Value else { throw ArchiveError(.typeMismatch, "NSAlignment is not an integer") }
            let names = ["left", "right", "center", "justified", "natural"]
            parts.append("alignment " + (names.indices.contains(Int(alignment)) ? names[Int(alignment)] : "\(alignment)"))
        }
        if case .uid(let uid)? = fields["NSTabStops"], uid.value != 0 {
            guard case .instance(let array)? = graph.object(uid), case .array(let tabs)? = array.storage["NS.objects"] else {
                throw ArchiveError(.typeMismatch, "NSTabStops is not an array of text tabs")
            }
            var locations: [String] = []
            for tab in tabs {
                guard let tabUID = tab.uidValue, case .instance(let object)? = graph.object(tabUID), let location = real(object.storage["NSLocation"]) else {
                    throw ArchiveError(.typeMismatch, "a tab stop is not an NSTextTab with an NSLocation")
                }
                locations.append(RenderBuffer.realText(location))
            }
            parts.append("tab stops " + (locations.isEmpty ? "none" : locations.joined(separator: ", ")))
        }
        for entry in fields.entries where !["$class", "NSAlignment", "NSTabStops"].contains(entry.key) {
            switch entry.value {
            case .integer(let integer): parts.append("\(entry.key) \(integer)")
            case .real(let real): parts.append("\(entry.key) \(RenderBuffer.realText(real.doubleValue))")
            case .bool(let flag): parts.append("\(entry.key) \(flag)")
            default: continue
            }
        }
        return parts.joined(separator: ", ")
    }

    /// The decimal numbers of a text stored as data (`0.2 0.2 0.2\0`), as stored.
    private func numbers(_ fields: PropertyListDictionary, _ key: String) throws(ArchiveError) -> String {
        var bytes: [UInt8]
        switch fields[key] {
        case .data(let stored)?: bytes = stored
        case .string(let stored)?: bytes = Array(stored.utf8)
        default: throw ArchiveError(.valueNotFound, "\(key) is not the text of its numbers")
        }
        while bytes.last == 0 { bytes.removeLast() }
        let words = bytes.split { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 }.map { String(decoding: $0, as: UTF8.self) }
        guard !words.isEmpty, words.count <= 8, words.allSatisfy({ Double($0) != nil }) else {
            throw ArchiveError(.valueOutOfRange, "\(key) is not one to eight decimal numbers")
        }
        return words.joined(separator: " ")
    }

    /// A plain string, or one a field refers to (a plain string or an `NSString` object's `NS.string`).
    private func string(_ value: PropertyListValue?) -> String? {
        switch value {
        case .string(let string)?: return string
        case .uid(let uid)?:
            switch graph.object(uid) {
            case .string(let string)?: return string
            case .instance(let object)?:
                if case .string(let string)? = object.storage["NS.string"] { return string }
                return nil
            default: return nil
            }
        default: return nil
        }
    }

    /// A number stored inline or referred to.
    private func real(_ value: PropertyListValue?) -> Double? {
        switch value {
        case .real(let real)?: return real.doubleValue
        case .integer(let integer)?: return integer.int64Value.map(Double.init)
        case .uid(let uid)?:
            switch graph.object(uid) {
            case .real(let real)?: return real.doubleValue
            case .integer(let integer)?: return integer.int64Value.map(Double.init)
            default: return nil
            }
        default: return nil
        }
    }
}
