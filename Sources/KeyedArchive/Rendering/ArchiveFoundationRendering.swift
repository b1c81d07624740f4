#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

/// How `dump` and `json` show an archive.
public struct ArchiveRenderingOptions: Hashable, Sendable {
    /// Show Foundation's value classes as the values they hold — `NSDate` as a date, `NSUUID`
    /// as its UUID string, `NSURL` with its base resolved, `NSString`/`NSData` as a string or
    /// data, `NSArray`/`NSSet`/`NSOrderedSet` as lists and `NSDictionary` as key → value pairs,
    /// `NSIndexSet`/`NSIndexPath` as their indexes, `NSValue` as its geometry or typed value,
    /// `NSMeasurement` with its unit, `NSDecimalNumber`, `NSTimeZone`, `NSLocale`,
    /// `NSAffineTransform`, `NSSortDescriptor`, and AppKit's `NSColor` (colour space and
    /// components), `NSFont` (name and size) and `NSParagraphStyle` (alignment, tab stops) —
    /// instead of the fields they are stored as. An object that does not read
    /// as its class's value is shown as stored, with a note saying why. Default: false (the
    /// fields as stored, what `keyedarchive dump --raw` shows).
    public var foundationValues = false
    /// `dump`: a line at the top saying what `#N` and `->` mean. Default: false.
    public var legend = false
    /// `json`: reals as plain JSON numbers (`2.5` rather than `{"$real": 2.5}`) wherever they
    /// are finite, so that `jq` filters need no `."$real"`; the text is the shortest that reads
    /// back as the same double, so no precision is lost. Infinities and NaNs keep the tagged
    /// form. Default: false.
    public var plainNumbers = false

    /// Options with each switch as given (all off by default: ``raw``).
    public init(foundationValues: Bool = false, legend: Bool = false, plainNumbers: Bool = false) {
        self.foundationValues = foundationValues
        self.legend = legend
        self.plainNumbers = plainNumbers
    }

    /// The fields as stored: the output of ``ArchiveDumper`` and ``ArchiveJSONRenderer`` without
    /// options.
    public static let raw = ArchiveRenderingOptions()
    /// What `keyedarchive dump` and `json` show by default: Foundation's values as values, and
    /// the legend.
    public static let readable = ArchiveRenderingOptions(foundationValues: true, legend: true)
}

/// What a Foundation object is shown as.
enum ArchiveFoundationRendering {
    /// A value printed where it is referenced, as a plain value of its kind would be.
    case scalar(ArchiveWalkScalar)
    /// A value with a name of its kind (`uuid`, `url`, `indexes`, …) and its text.
    case text(kind: String, String)
    /// A collection, its elements as stored (references and inline values).
    case list(ArchiveWalkContainer, [PropertyListValue])
    /// An `NSDictionary` whose keys are all strings.
    case dictionary([PropertyListDictionary.Entry])
    /// A Foundation class whose object does not read as its value: shown as stored, with why.
    case malformed(String)
}

/// Reads Foundation's value objects of a graph through the typed decoders, so that what `dump`
/// shows is what decoding would make (URLs resolved as `URL` resolves them, index sets
/// validated as `ArchiveIndexSet` validates them), and a malformed object is named as decoding
/// would name it.
final class ArchiveFoundationInterpreter {
    let graph: ArchiveGraph
    private let unarchiver: KeyedUnarchiver
    /// Each object's rendering, made once: a short value is shown at every reference to it, and
    /// decoding it again each time (an NSURL's whole chain of bases) would cost references ×
    /// chain length and spend the session's visit budget anew.
    private var renderings: [Int: ArchiveFoundationRendering] = [:]

    init(graph: ArchiveGraph, options: ArchiveReadingOptions) {
        self.graph = graph
        unarchiver = KeyedUnarchiver(graph: graph, registry: ArchiveRegistry(), options: options)
        // NSURL bases nest: the decoders check the stack against this thread's bounds.
        unarchiver.session.beginStackWatch()
    }

    /// Foundation class names this shows as values (the plain and the mutable forms).
    private static let valueClasses: Set<String> = [
        "NSDate", "NSUUID", "NSURL", "NSString", "NSMutableString", "NSData", "NSMutableData",
        "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet",
        "NSDictionary", "NSMutableDictionary", "NSIndexSet", "NSMutableIndexSet", "NSIndexPath", "NSValue",
        "NSMeasurement", "NSDecimalNumber", "NSDecimalNumberPlaceholder", "NSTimeZone", "NSLocale", "NSAffineTransform", "NSSortDescriptor",
    ]

    private func decode<T: ArchiveObjectDecodable>(_ type: T.Type, _ uid: Int) throws(ArchiveError) -> T {
        try unarchiver.topLevelDecoder.decode(T.self, reference: ArchiveReference(uid: PropertyListUID(UInt64(uid))))
    }

    /// How the instance at `uid` of class `className` is shown; nil for a class that is shown as stored.
    func rendering(of uid: Int, className: String, fields: PropertyListDictionary) -> ArchiveFoundationRendering? {
        guard Self.valueClasses.contains(className) || Self.appKitValueClasses.contains(className) else { return nil }
        if let known = renderings[uid] { return known }
        let made = makeRendering(of: uid, className: className, fields: fields)
        renderings[uid] = made
        return made
    }

    private func makeRendering(of uid: Int, className: String, fields: PropertyListDictionary) -> ArchiveFoundationRendering {
        do throws(ArchiveError) {
            switch className {
            case "NSDate":
                return .scalar(.date(PropertyListDate(try decode(Date.self, uid))))
            case "NSUUID":
                return .text(kind: "uuid", try decode(UUID.self, uid).uuidString)
            case "NSURL":
                return .text(kind: "url", try decode(URL.self, uid).absoluteString)
            case "NSString", "NSMutableString":
                return .scalar(.string(try decode(String.self, uid)))
            case "NSData", "NSMutableData":
                return .scalar(.data([UInt8](try decode(Data.self, uid))))
            case "NSIndexSet", "NSMutableIndexSet":
                let set = try decode(ArchiveIndexSet.self, uid)
                return .text(kind: "indexes", set.ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)...\($0.upperBound - 1)" }.joined(separator: ", "))
            case "NSIndexPath":
                return .text(kind: "indexPath", "[" + (try decode(IndexPath.self, uid)).map(String.init).joined(separator: ", ") + "]")
            case "NSValue" where fields["NS.special"] == nil && fields["$0"] != nil:
                return .text(kind: "nsvalue", try decode(ArchiveEncodedValue.self, uid).description)
            case "NSValue":
                return .text(kind: "nsvalue", Self.describe(try decode(ArchiveSpecialValue.self, uid)))
            case "NSDecimalNumber", "NSDecimalNumberPlaceholder":
                return .text(kind: "decimal", "\(try decode(ArchiveDecimalNumber.self, uid).decimalValue)")
            case "NSTimeZone":
                return .text(kind: "timeZone", try decode(ArchiveTimeZone.self, uid).name)
            case "NSLocale":
                return .text(kind: "locale", try decode(ArchiveLocale.self, uid).identifier)
            case "NSAffineTransform":
                let transform = try decode(ArchiveAffineTransform.self, uid)
                return .text(kind: "affineTransform", "[" + transform.components.map { RenderBuffer.realText(Double($0)) }.joined(separator: " ") + "]")
            case "NSSortDescriptor":
                let descriptor = try decode(ArchiveSortDescriptor.self, uid)
                return .text(kind: "sortDescriptor", "\(descriptor.key ?? "self") \(descriptor.ascending ? "ascending" : "descending")" + (descriptor.selector.map { " " + $0 } ?? ""))
            case _ where Self.appKitValueClasses.contains(className):
                return appKitRendering(className: className, fields: fields)
            case "NSMeasurement":
                return try measurement(fields)
            case "NSDictionary", "NSMutableDictionary":
                return try dictionary(uid, fields: fields)
            default:
                return try list(uid, className: className, fields: fields)
            }
        } catch {
            return .malformed(error.message)
        }
    }

    private static func describe(_ value: ArchiveSpecialValue) -> String {
        switch value {
        case .point(let point): return "point " + GeometryText.pair(point.x, point.y)
        case .size(let size): return "size " + GeometryText.pair(size.width, size.height)
        case .rect(let rect): return "rect " + GeometryText.rect(rect)
        case .range(let range): return "range {\(range.location), \(range.length)}"
        case .edgeInsets(let insets):
            return "edgeInsets " + numbers([insets.top, insets.left, insets.bottom, insets.right])
        case .uiEdgeInsets(let insets):
            return "UIEdgeInsets " + numbers([insets.top, insets.left, insets.bottom, insets.right])
        case .cgAffineTransform(let transform):
            return "CGAffineTransform " + numbers([transform.a, transform.b, transform.c, transform.d, transform.tx, transform.ty])
        case .offset(let offset):
            return "UIOffset " + numbers([offset.horizontal, offset.vertical])
        case .directionalEdgeInsets(let insets):
            return "NSDirectionalEdgeInsets " + numbers([insets.top, insets.leading, insets.bottom, insets.trailing])
        }
        func numbers(_ values: [Double]) -> String { "{" + values.map(XMLRealText.percentG17).joined(separator: ", ") + "}" }
    }

    /// The references stored as an inline array under `key`.
    private func references(_ fields: PropertyListDictionary, _ key: String) throws(ArchiveError) -> [PropertyListValue] {
        guard let stored = fields[key] else { throw ArchiveError(.valueNotFound, "\(key) is missing") }
        guard case .array(let elements) = stored, elements.allSatisfy({ $0.uidValue != nil }) else {
            throw ArchiveError(.typeMismatch, "\(key) is \(stored.kindNameWithArticle), not an array of references")
        }
        return elements
    }

    private func list(_ uid: Int, className: String, fields: PropertyListDictionary) throws(ArchiveError) -> ArchiveFoundationRendering {
        if className.hasSuffix("OrderedSet") {
            // NS.object.0, NS.object.1, …: one key per element.
            var elements: [PropertyListValue] = []
            while let element = fields["NS.object.\(elements.count)"] {
                guard element.uidValue != nil else {
                    throw ArchiveError(.typeMismatch, "NS.object.\(elements.count) is \(element.kindNameWithArticle), not a reference")
                }
                elements.append(element)
            }
            return .list(.array, elements)
        }
        return .list(className.hasSuffix("Set") ? .set : .array, try references(fields, "NS.objects"))
    }

    private func dictionary(_ uid: Int, fields: PropertyListDictionary) throws(ArchiveError) -> ArchiveFoundationRendering {
        let keys = try references(fields, "NS.keys")
        let objects = try references(fields, "NS.objects")
        guard keys.count == objects.count else {
            throw ArchiveError(.valueOutOfRange, "NS.keys has \(keys.count) entries but NS.objects has \(objects.count)")
        }
        var entries: [PropertyListDictionary.Entry] = []
        entries.reserveCapacity(keys.count)
        for (key, object) in zip(keys, objects) {
            guard let keyUID = key.uidValue, keyUID.value < UInt64(graph.objects.count) else {
                throw ArchiveError(.invalidReference, "a key refers to no object")
            }
            let text: String
            switch graph.objects[Int(keyUID.value)] {
            case .string(let string): text = string
            case .instance where graph.className(of: keyUID).map({ $0 == "NSString" || $0 == "NSMutableString" }) == true:
                text = try decode(String.self, Int(keyUID.value))
            default:
                throw ArchiveError(.typeMismatch, "a key is not a string (keys are shown as key → value pairs only when they all are)")
            }
            entries.append(PropertyListDictionary.Entry(key: text, value: object))
        }
        return .dictionary(entries)
    }

    /// `NS.value` and the `NS.symbol` of the `NSUnit` under `NS.unit`.
    private func measurement(_ fields: PropertyListDictionary) throws(ArchiveError) -> ArchiveFoundationRendering {
        let value: Double
        switch fields["NS.value"] {
        case .real(let real)?: value = real.doubleValue
        case .integer(let integer)?:
            guard let exact = integer.int64Value else { throw ArchiveError(.valueOutOfRange, "NS.value \(integer) is out of range") }
            value = Double(exact)
        default: throw ArchiveError(.valueNotFound, "NS.value is not a number")
        }
        guard case .uid(let unitUID)? = fields["NS.unit"], unitUID.value < UInt64(graph.objects.count),
              case .instance(let unit) = graph.objects[Int(unitUID.value)],
              case .uid(let symbolUID)? = unit.storage["NS.symbol"] else {
            throw ArchiveError(.valueNotFound, "NS.unit is not a unit object with an NS.symbol")
        }
        let symbol = try decode(String.self, Int(symbolUID.value))
        return .text(kind: "measurement", "\(RenderBuffer.realText(value)) \(symbol)")
    }
}
