import PropertyList

// NSValue, in the keyed form Foundation on macOS and iOS writes it (the Darwin-made archives of
// swift-corelibs-foundation's unarchiver tests, an iOS device payload, and nibs): `NS.special`
// names the structure the value holds, and the structure is stored under its own keys —
//
// | NS.special | structure   | fields                                                            |
// |------------|-------------|-------------------------------------------------------------------|
// | 1          | point       | `NS.pointval`, text `{x, y}`                                      |
// | 2          | size        | `NS.sizeval`, text `{w, h}`                                       |
// | 3          | rect        | `NS.rectval`, text `{{x, y}, {w, h}}`                             |
// | 4          | range       | `NS.rangeval.location`, `NS.rangeval.length`: NSNumber objects    |
// | 12         | edge insets | `NS.edgeval.top`, `.left`, `.bottom`, `.right`: inline doubles    |
// | 10         | CGAffineTransform (UIKit) | `NS.atval.a`, `.b`, `.c`, `.d`, `.tx`, `.ty`: inline doubles |
// | 11         | UIEdgeInsets | `NS.edgeval.top`, `.left`, `.bottom`, `.right`: inline doubles   |
// | 13         | UIOffset     | `NS.offset.h`, `NS.offset.v`: inline doubles                     |
// | 14         | NSDirectionalEdgeInsets | `NS.dirEdgeVal.top`, `.leading`, `.bottom`, `.trailing` |
//
// (10, 11, 13 and 14 are what Foundation's NSConcreteValue writes for UIKit's structures on iOS:
// `NS.special` first, then the numbers with `encodeDouble:forKey:`.)
//
// The text is `NSStringFromPoint`/`NSStringFromSize`/`NSStringFromRect`'s, numbers printed with
// C's `%.17g`; it is read as `NSPointFromString` and its siblings read it: the numbers in order,
// whatever stands between them, and 0 for each one missing.

/// A point, as `NSValue` archives `NSPoint` / `CGPoint`.
public struct ArchivePoint: Hashable, Sendable {
    /// The horizontal coordinate.
    public var x: Double
    /// The vertical coordinate.
    public var y: Double

    /// The point (`x`, `y`).
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A size, as `NSValue` archives `NSSize` / `CGSize`.
public struct ArchiveSize: Hashable, Sendable {
    /// The horizontal extent.
    public var width: Double
    /// The vertical extent.
    public var height: Double

    /// A size of `width` by `height`.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// A rectangle, as `NSValue` archives `NSRect` / `CGRect`: an origin and a size, stored as given
/// (a negative width is kept, not standardized).
public struct ArchiveRect: Hashable, Sendable {
    /// The rectangle's origin.
    public var origin: ArchivePoint
    /// The rectangle's size, possibly negative.
    public var size: ArchiveSize

    /// A rectangle at `origin` of `size`.
    public init(origin: ArchivePoint, size: ArchiveSize) {
        self.origin = origin
        self.size = size
    }

    /// A rectangle at (`x`, `y`) of `width` by `height`.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: ArchivePoint(x: x, y: y), size: ArchiveSize(width: width, height: height))
    }
}

/// A range, as `NSValue` archives `NSRange`: a location and a length, both `NSUInteger`s no
/// larger than `Int.max` (`NSNotFound`, `Int.max`, is a valid location).
public struct ArchiveRange: Hashable, Sendable {
    /// The start of the range (`NSNotFound`, `Int.max`, when it stands for "not found").
    public let location: Int
    /// How many items the range covers.
    public let length: Int

    /// - Precondition: `location` and `length` are not negative.
    public init(location: Int, length: Int) {
        precondition(location >= 0 && length >= 0, "an NSRange's location and length are unsigned")
        self.location = location
        self.length = length
    }
}

/// Edge insets, as `NSValue` archives `NSEdgeInsets`.
public struct ArchiveEdgeInsets: Hashable, Sendable {
    /// The top inset.
    public var top: Double
    /// The left inset.
    public var left: Double
    /// The bottom inset.
    public var bottom: Double
    /// The right inset.
    public var right: Double

    /// Insets of `top`, `left`, `bottom` and `right`.
    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }
}

/// A 2-D affine transform, as `NSValue` archives UIKit's `CGAffineTransform` (`NS.special` 10):
/// the matrix [a b; c d] and the translation (tx, ty).
public struct ArchiveCGAffineTransform: Hashable, Sendable {
    /// Row 1, column 1.
    public var a: Double
    /// Row 1, column 2.
    public var b: Double
    /// Row 2, column 1.
    public var c: Double
    /// Row 2, column 2.
    public var d: Double
    /// The horizontal translation.
    public var tx: Double
    /// The vertical translation.
    public var ty: Double

    /// The transform of the matrix [`a` `b`; `c` `d`] and the translation (`tx`, `ty`).
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }
}

/// An offset, as `NSValue` archives UIKit's `UIOffset` (`NS.special` 13).
public struct ArchiveOffset: Hashable, Sendable {
    /// The horizontal offset.
    public var horizontal: Double
    /// The vertical offset.
    public var vertical: Double

    /// An offset of `horizontal` and `vertical`.
    public init(horizontal: Double, vertical: Double) {
        self.horizontal = horizontal
        self.vertical = vertical
    }
}

/// Edge insets by reading direction, as `NSValue` archives `NSDirectionalEdgeInsets`
/// (`NS.special` 14).
public struct ArchiveDirectionalEdgeInsets: Hashable, Sendable {
    /// The top inset.
    public var top: Double
    /// The leading inset.
    public var leading: Double
    /// The bottom inset.
    public var bottom: Double
    /// The trailing inset.
    public var trailing: Double

    /// Insets of `top`, `leading`, `bottom` and `trailing`.
    public init(top: Double, leading: Double, bottom: Double, trailing: Double) {
        self.top = top
        self.leading = leading
        self.bottom = bottom
        self.trailing = trailing
    }
}

/// An `NSValue` holding one of the structures Foundation archives by key. Decode this when any
/// of them may come; decode ``ArchivePoint``, ``ArchiveSize``, ``ArchiveRect``, ``ArchiveRange``
/// or ``ArchiveEdgeInsets`` to accept one kind only. An `NSValue` archived by its Objective-C
/// type is an ``ArchiveEncodedValue``, and refused here with ``ArchiveError/Code/typeMismatch``,
/// as is an `NS.special` not in this list (the generic view still shows its fields).
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum ArchiveSpecialValue: Hashable, Sendable {
    /// An `NSPoint` / `CGPoint`.
    case point(ArchivePoint)
    /// An `NSSize` / `CGSize`.
    case size(ArchiveSize)
    /// An `NSRect` / `CGRect`.
    case rect(ArchiveRect)
    /// An `NSRange`.
    case range(ArchiveRange)
    /// An `NSEdgeInsets`.
    case edgeInsets(ArchiveEdgeInsets)
    /// UIKit's `CGAffineTransform` (iOS).
    case cgAffineTransform(ArchiveCGAffineTransform)
    /// UIKit's `UIEdgeInsets` (iOS): the fields of ``edgeInsets(_:)`` under another code.
    case uiEdgeInsets(ArchiveEdgeInsets)
    /// UIKit's `UIOffset` (iOS).
    case offset(ArchiveOffset)
    /// `NSDirectionalEdgeInsets` (iOS).
    case directionalEdgeInsets(ArchiveDirectionalEdgeInsets)

    /// The `NS.special` code Foundation stores for the structure.
    public var specialCode: Int {
        switch self {
        case .point: return 1
        case .size: return 2
        case .rect: return 3
        case .range: return 4
        case .edgeInsets: return 12
        case .cgAffineTransform: return 10
        case .uiEdgeInsets: return 11
        case .offset: return 13
        case .directionalEdgeInsets: return 14
        }
    }

    fileprivate var structureName: String {
        switch self {
        case .point: return "a point"
        case .size: return "a size"
        case .rect: return "a rect"
        case .range: return "a range"
        case .edgeInsets: return "edge insets"
        case .cgAffineTransform: return "an affine transform"
        case .uiEdgeInsets: return "UIKit edge insets"
        case .offset: return "an offset"
        case .directionalEdgeInsets: return "directional edge insets"
        }
    }
}

/// Foundation's text for points, sizes and rects, both ways.
enum GeometryText {
    static func pair(_ first: Double, _ second: Double) -> String {
        "{\(XMLRealText.percentG17(first)), \(XMLRealText.percentG17(second))}"
    }

    static func rect(_ rect: ArchiveRect) -> String {
        "{\(pair(rect.origin.x, rect.origin.y)), \(pair(rect.size.width, rect.size.height))}"
    }

    /// The first `count` numbers of `text` in order, anything between them skipped, and 0 for
    /// each one the text does not have — `NSPointFromString`'s reading ("{3}" is the point
    /// (3, 0), "junk" the point (0, 0)). Stops once it has `count`; linear in the text.
    static func numbers(in text: String, count: Int) -> [Double] {
        var numbers: [Double] = []
        numbers.reserveCapacity(count)
        let bytes = Array(text.utf8)
        var position = 0
        while position < bytes.count, numbers.count < count {
            if let (value, end) = number(in: bytes, at: position) {
                numbers.append(value)
                position = end
            } else {
                position += 1
            }
        }
        while numbers.count < count { numbers.append(0) }
        return numbers
    }

    /// A decimal number (optional sign, digits with an optional point, optional exponent) or
    /// `inf`, `infinity` or `nan` in any case, starting at `start`; nil if none starts there.
    private static func number(in bytes: [UInt8], at start: Int) -> (Double, Int)? {
        var position = start
        if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
        for word in specialWords where matches(word, in: bytes, at: position) {
            let end = position + word.count
            guard let value = Double(String(decoding: bytes[start..<end], as: UTF8.self)) else { return nil }
            return (value, end)
        }
        var digits = 0
        while position < bytes.count, isDigit(bytes[position]) {
            position += 1
            digits += 1
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            while position < bytes.count, isDigit(bytes[position]) {
                position += 1
                digits += 1
            }
        }
        guard digits > 0 else { return nil }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            var exponentEnd = position + 1
            if exponentEnd < bytes.count, bytes[exponentEnd] == UInt8(ascii: "+") || bytes[exponentEnd] == UInt8(ascii: "-") { exponentEnd += 1 }
            let exponentDigitsStart = exponentEnd
            while exponentEnd < bytes.count, isDigit(bytes[exponentEnd]) { exponentEnd += 1 }
            // "1e" or "1e+" is the number 1 followed by other text, as strtod reads it.
            if exponentEnd > exponentDigitsStart { position = exponentEnd }
        }
        guard let value = Double(String(decoding: bytes[start..<position], as: UTF8.self)) else { return nil }
        return (value, position)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Longest first: `infinity` before its prefix `inf`.
    private static let specialWords: [[UInt8]] = [Array("infinity".utf8), Array("inf".utf8), Array("nan".utf8)]

    private static func matches(_ letters: [UInt8], in bytes: [UInt8], at position: Int) -> Bool {
        guard bytes.count - position >= letters.count else { return false }
        var offset = 0
        while offset < letters.count {
            guard bytes[position + offset] | 0x20 == letters[offset] else { return false }
            offset += 1
        }
        return true
    }
}

// MARK: Coding

extension ArchiveSpecialValue: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.encodeObject(classes: FoundationClass.value.archivedChain) { fields in
            // Objects take their UIDs in this order: a range's length before its location, as in
            // the Darwin-made archive (the inline NS.special takes none).
            switch self {
            case .point(let point):
                try fields.encode(GeometryText.pair(point.x, point.y), forKey: "NS.pointval")
            case .size(let size):
                try fields.encode(GeometryText.pair(size.width, size.height), forKey: "NS.sizeval")
            case .rect(let rect):
                try fields.encode(GeometryText.rect(rect), forKey: "NS.rectval")
            case .range(let range):
                // NSNumber objects.
                try fields.encode(UInt64(range.length), forKey: "NS.rangeval.length")
                try fields.encode(UInt64(range.location), forKey: "NS.rangeval.location")
            case .edgeInsets(let insets), .uiEdgeInsets(let insets):
                try fields.encode(insets.top, forKey: "NS.edgeval.top")
                try fields.encode(insets.left, forKey: "NS.edgeval.left")
                try fields.encode(insets.bottom, forKey: "NS.edgeval.bottom")
                try fields.encode(insets.right, forKey: "NS.edgeval.right")
            case .cgAffineTransform(let transform):
                for (key, number) in Self.transformFields(transform) { try fields.encode(number, forKey: key) }
            case .offset(let offset):
                try fields.encode(offset.horizontal, forKey: "NS.offset.h")
                try fields.encode(offset.vertical, forKey: "NS.offset.v")
            case .directionalEdgeInsets(let insets):
                for (key, number) in Self.directionalFields(insets) { try fields.encode(number, forKey: key) }
            }
            try fields.encode(specialCode, forKey: "NS.special")
        }
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveSpecialValue {
        try read(reference, from: decoder, requested: "ArchiveSpecialValue")
    }

    /// The value at `reference`, read once per object: an `NSValue` referenced many times is not
    /// scanned again per reference.
    static func read(_ reference: ArchiveReference, from decoder: KeyedArchiveDecoder, requested: @autoclosure () -> String) throws(ArchiveError) -> ArchiveSpecialValue {
        let session = decoder.session
        let uid = try session.index(reference)
        let fields = try session.foundationFields(uid, kind: .value, requested: requested())
        return try session.decodeContainer(ArchiveSpecialValue.self, uid: uid, count: 0) { () throws(ArchiveError) in
            try structure(in: fields)
        }
    }

    private static func structure(in fields: KeyedArchiveDecoder) throws(ArchiveError) -> ArchiveSpecialValue {
        guard fields.contains("NS.special") else {
            throw fields.error(.typeMismatch, "an NSValue without NS.special holds a value archived by its Objective-C type\(objectiveCType(in: fields)); decode it as ArchiveEncodedValue", key: "NS.special")
        }
        let code = try fields.decode(Int.self, forKey: "NS.special")
        switch code {
        case 1:
            let numbers = try geometryNumbers(in: fields, forKey: "NS.pointval")
            return .point(ArchivePoint(x: numbers[0], y: numbers[1]))
        case 2:
            let numbers = try geometryNumbers(in: fields, forKey: "NS.sizeval")
            return .size(ArchiveSize(width: numbers[0], height: numbers[1]))
        case 3:
            let numbers = try geometryNumbers(in: fields, forKey: "NS.rectval")
            return .rect(ArchiveRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]))
        case 4:
            let location = try fields.decode(Int.self, forKey: "NS.rangeval.location")
            let length = try fields.decode(Int.self, forKey: "NS.rangeval.length")
            guard location >= 0 else {
                throw fields.error(.valueOutOfRange, "NS.rangeval.location is \(location); an NSRange's location is unsigned", key: "NS.rangeval.location")
            }
            guard length >= 0 else {
                throw fields.error(.valueOutOfRange, "NS.rangeval.length is \(length); an NSRange's length is unsigned", key: "NS.rangeval.length")
            }
            return .range(ArchiveRange(location: location, length: length))
        case 12:
            return .edgeInsets(ArchiveEdgeInsets(top: try fields.decode(Double.self, forKey: "NS.edgeval.top"),
                                                 left: try fields.decode(Double.self, forKey: "NS.edgeval.left"),
                                                 bottom: try fields.decode(Double.self, forKey: "NS.edgeval.bottom"),
                                                 right: try fields.decode(Double.self, forKey: "NS.edgeval.right")))
        case 11:
            return .uiEdgeInsets(ArchiveEdgeInsets(top: try fields.decode(Double.self, forKey: "NS.edgeval.top"),
                                                   left: try fields.decode(Double.self, forKey: "NS.edgeval.left"),
                                                   bottom: try fields.decode(Double.self, forKey: "NS.edgeval.bottom"),
                                                   right: try fields.decode(Double.self, forKey: "NS.edgeval.right")))
        case 10:
            return .cgAffineTransform(ArchiveCGAffineTransform(a: try fields.decode(Double.self, forKey: "NS.atval.a"), b: try fields.decode(Double.self, forKey: "NS.atval.b"),
                                                               c: try fields.decode(Double.self, forKey: "NS.atval.c"), d: try fields.decode(Double.self, forKey: "NS.atval.d"),
                                                               tx: try fields.decode(Double.self, forKey: "NS.atval.tx"), ty: try fields.decode(Double.self, forKey: "NS.atval.ty")))
        case 13:
            return .offset(ArchiveOffset(horizontal: try fields.decode(Double.self, forKey: "NS.offset.h"), vertical: try fields.decode(Double.self, forKey: "NS.offset.v")))
        case 14:
            return .directionalEdgeInsets(ArchiveDirectionalEdgeInsets(top: try fields.decode(Double.self, forKey: "NS.dirEdgeVal.top"),
                                                                       leading: try fields.decode(Double.self, forKey: "NS.dirEdgeVal.leading"),
                                                                       bottom: try fields.decode(Double.self, forKey: "NS.dirEdgeVal.bottom"),
                                                                       trailing: try fields.decode(Double.self, forKey: "NS.dirEdgeVal.trailing")))
        default:
            throw fields.error(.typeMismatch, "NS.special \(code) names a structure with no mapping (1 point, 2 size, 3 rect, 4 range, 10 affine transform, 11 UIKit edge insets, 12 edge insets, 13 offset, 14 directional edge insets); the generic view shows its fields", key: "NS.special")
        }
    }

    /// A transform's stored keys and numbers, in Foundation's order.
    static func transformFields(_ transform: ArchiveCGAffineTransform) -> [(String, Double)] {
        [("NS.atval.a", transform.a), ("NS.atval.b", transform.b), ("NS.atval.c", transform.c),
         ("NS.atval.d", transform.d), ("NS.atval.tx", transform.tx), ("NS.atval.ty", transform.ty)]
    }

    /// Directional insets' stored keys and numbers, in Foundation's order.
    static func directionalFields(_ insets: ArchiveDirectionalEdgeInsets) -> [(String, Double)] {
        [("NS.dirEdgeVal.top", insets.top), ("NS.dirEdgeVal.leading", insets.leading),
         ("NS.dirEdgeVal.bottom", insets.bottom), ("NS.dirEdgeVal.trailing", insets.trailing)]
    }

    /// The first four numbers of the geometry text under `key` (a point or size uses two),
    /// read once per string object: many NSValues sharing one long text cost its length once
    /// (a review's finding: a thousand NSValues over one 200 KB string took minutes).
    private static func geometryNumbers(in fields: KeyedArchiveDecoder, forKey key: String) throws(ArchiveError) -> [Double] {
        let session = fields.session
        guard let reference = try fields.reference(forKey: key), !reference.isNull else {
            // Absent or $null: the general path names what is missing.
            return GeometryText.numbers(in: try fields.decode(String.self, forKey: key), count: 4)
        }
        let uid = try session.index(reference)
        let numbers = try session.decodeContainer(GeometryNumbers.self, uid: uid, count: 0) { () throws(ArchiveError) in
            GeometryNumbers(values: GeometryText.numbers(in: try fields.decode(String.self, forKey: key), count: 4))
        }
        return numbers.values
    }

    /// The numbers of one geometry text, as the per-object cache holds them.
    private struct GeometryNumbers {
        let values: [Double]
    }

    /// ` ("[3i]")` when the value's first unkeyed field is the type's text, as Foundation writes it.
    private static func objectiveCType(in fields: KeyedArchiveDecoder) -> String {
        guard case .uid(let reference)? = fields.rawValue(forStoredKey: "$0"),
              let uid = try? fields.session.index(reference),
              let text = try? ArchiveStringDecoding.decode(uid: uid, session: fields.session) else { return "" }
        return " (\"\(text.excerptForMessage(32).escapedForMessage)\")"
    }

    /// The one kind a typed mapping accepts, or a type mismatch naming what the value holds.
    fileprivate static func expecting<T>(_ kind: String, from decoder: KeyedArchiveDecoder, reference: ArchiveReference,
                                         _ extract: (ArchiveSpecialValue) -> T?) throws(ArchiveError) -> T {
        let value = try read(reference, from: decoder, requested: "\(T.self)")
        if let wanted = extract(value) { return wanted }
        let uid = try decoder.session.index(reference)
        throw decoder.session.error(.typeMismatch, "expected an NSValue holding \(kind), found one holding \(value.structureName) (NS.special \(value.specialCode))", uid: uid)
    }
}

extension ArchivePoint: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try ArchiveSpecialValue.point(self).archiveReference(in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchivePoint {
        try ArchiveSpecialValue.expecting("a point", from: decoder, reference: reference) { if case .point(let value) = $0 { value } else { nil } }
    }
}

extension ArchiveSize: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try ArchiveSpecialValue.size(self).archiveReference(in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveSize {
        try ArchiveSpecialValue.expecting("a size", from: decoder, reference: reference) { if case .size(let value) = $0 { value } else { nil } }
    }
}

extension ArchiveRect: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try ArchiveSpecialValue.rect(self).archiveReference(in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveRect {
        try ArchiveSpecialValue.expecting("a rect", from: decoder, reference: reference) { if case .rect(let value) = $0 { value } else { nil } }
    }
}

extension ArchiveRange: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try ArchiveSpecialValue.range(self).archiveReference(in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveRange {
        try ArchiveSpecialValue.expecting("a range", from: decoder, reference: reference) { if case .range(let value) = $0 { value } else { nil } }
    }
}

extension ArchiveEdgeInsets: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try ArchiveSpecialValue.edgeInsets(self).archiveReference(in: encoder)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveEdgeInsets {
        try ArchiveSpecialValue.expecting("edge insets", from: decoder, reference: reference) { if case .edgeInsets(let value) = $0 { value } else { nil } }
    }
}
