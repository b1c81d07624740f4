import Foundation
@testable import PropertyList
import Testing
@testable import KeyedArchive

/// ``ArchiveSpecialValue`` and its single-kind forms ↔ NSValue, against independent references:
/// the archives Foundation on Darwin wrote for swift-corelibs-foundation's unarchiver tests
/// (decoded to the values their manifest lines name, and rebuilt byte for byte), every NSValue
/// elsewhere in the Apple corpus (an iOS device payload, nibs) read as Foundation on Linux reads
/// it, Foundation on Linux's NSKeyedArchiver and NSKeyedUnarchiver in this process, and C's
/// `printf("%.17g")` for the numbers of the geometry text.
@Suite struct FoundationValueMappingTests {
    static let folder = "corelibs-foundation/unarchiver/"
    static let valueClasses = ["NSValue", "NSObject"]

    static func archive<T: ArchiveObjectEncodable>(_ value: T, format: ArchiveFormat = .binary) throws -> [UInt8] {
        let archiver = KeyedArchiver(registry: ArchiveRegistry(), options: .appleFaithful)
        try archiver.encode(value)
        return try archiver.finish(format: format)
    }

    static func hostile(_ fields: [(String, ArchiveGenericObject.Field)]) throws -> [UInt8] {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(ArchiveGenericObject(classes: valueClasses, fields: fields))
        return try archiver.finish()
    }

    static func integer(_ value: Int64) -> ArchiveGenericObject.Field { .inline(.integer(PropertyListInteger(value))) }

    // MARK: Apple's archives

    /// The values the manifest names for the Darwin-made archives of corelibs' unarchiver tests.
    static let darwinValues: [(String, ArchiveSpecialValue)] = [
        ("NSKeyedUnarchiver-RectTest", .rect(ArchiveRect(x: 400, y: 300, width: 200, height: 300))),
        ("NSKeyedUnarchiver-RangeTest", .range(ArchiveRange(location: 97345, length: 98345))),
        ("NSKeyedUnarchiver-EdgeInsetsTest", .edgeInsets(ArchiveEdgeInsets(top: 1, left: 2, bottom: 3, right: 4))),
    ]

    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func appleArchivesDecodeToTheirValues() throws {
        for (name, expected) in Self.darwinValues {
            #expect(try FoundationDecoding.decode(ArchiveSpecialValue.self, ArchiveFixtures.bytes(Self.folder + name + ".plist")) == expected, "\(name)")
        }
        #expect(try FoundationDecoding.decode(ArchiveRect.self, ArchiveFixtures.bytes(Self.folder + "NSKeyedUnarchiver-RectTest.plist")) == ArchiveRect(x: 400, y: 300, width: 200, height: 300))
        #expect(try FoundationDecoding.decode(ArchiveRange.self, ArchiveFixtures.bytes(Self.folder + "NSKeyedUnarchiver-RangeTest.plist")) == ArchiveRange(location: 97345, length: 98345))
        #expect(try FoundationDecoding.decode(ArchiveEdgeInsets.self, ArchiveFixtures.bytes(Self.folder + "NSKeyedUnarchiver-EdgeInsetsTest.plist")) == ArchiveEdgeInsets(top: 1, left: 2, bottom: 3, right: 4))

        // An NSValue archived by its Objective-C type ("[3i]", three Int32s) has no mapping.
        let concrete = FoundationDecoding.refusal(ArchiveSpecialValue.self, try ArchiveFixtures.bytes(Self.folder + "NSKeyedUnarchiver-ConcreteValueTest.plist"))
        #expect(concrete?.code == .typeMismatch)
        #expect(concrete?.keyPath.description == "root.NS.special")
        #expect(concrete?.message.contains("(\"[3i]\")") == true, "\(String(describing: concrete))")

        // The rect inside an iOS device payload (go-ios), 17 significant digits per number.
        let payload = try ArchiveGraph(bytes: ArchiveFixtures.bytes("go-ios/device-captured/nsvalue.bin.plist"))
        let rects = try Self.specialValues(in: payload).map { try FoundationDecoding.decode(ArchiveSpecialValue.self, $0.alone) }
        #expect(rects == [.rect(ArchiveRect(x: 146.33333333333337, y: 728.33333333333337, width: 135.66666666666663, height: 69.666666666666629))])
    }

    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func appleArchivesAreRebuiltByteForByte() throws {
        for (name, value) in Self.darwinValues {
            let apple = try ArchiveFixtures.bytes(Self.folder + name + ".plist")
            let ours = try Self.archive(value, format: .xml)
            #expect(ours == apple, "\(name): \(String(decoding: ours, as: UTF8.self))")
        }
    }

    /// The device payload's NSValue, whose dictionary keys a Mac laid out in Core Foundation's
    /// order for Foundation's encoding order: ours, made from the value alone, has the same
    /// keys in the same order and the same text.
    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func binaryKeyOrderIsApples() throws {
        let payload = try PropertyListCodec.decode(ArchiveFixtures.bytes("go-ios/device-captured/nsvalue.bin.plist"))
        let rect = ArchiveRect(x: 146.33333333333337, y: 728.33333333333337, width: 135.66666666666663, height: 69.666666666666629)
        let ours = try PropertyListCodec.decode(Self.archive(rect))
        func valueObject(_ plist: PropertyListValue) -> PropertyListDictionary? {
            guard case .dictionary(let root) = plist, case .array(let objects)? = root["$objects"] else { return nil }
            for object in objects {
                if case .dictionary(let dictionary) = object, dictionary["NS.special"] != nil { return dictionary }
            }
            return nil
        }
        let appleKeys = valueObject(payload).map { $0.map(\.key) }
        #expect(appleKeys == ["NS.rectval", "$class", "NS.special"])
        #expect(valueObject(ours).map { $0.map(\.key) } == appleKeys)
        #expect(GeometryText.rect(rect) == "{{146.33333333333337, 728.33333333333337}, {135.66666666666663, 69.666666666666629}}")
    }

    /// Every NSValue with `NS.special` in the Apple corpus, taken out of its archive alone.
    static func specialValues(in graph: ArchiveGraph) throws -> [(uid: Int, alone: [UInt8], fields: [String: PropertyListValue])] {
        var found: [(uid: Int, alone: [UInt8], fields: [String: PropertyListValue])] = []
        for (uid, object) in graph.objects.enumerated() {
            guard case .instance(let instance) = object,
                  graph.classDescriptor(of: PropertyListUID(UInt64(uid)))?.name == "NSValue",
                  instance.value(forKey: "NS.special") != nil else { continue }
            var fields: [(String, ArchiveGenericObject.Field)] = []
            var resolved: [String: PropertyListValue] = [:]
            for field in instance.fields {
                if case .uid(let target) = field.value {
                    let value: PropertyListValue
                    switch graph.objects[Int(target.value)] {
                    case .string(let text): value = .string(text)
                    case .integer(let number): value = .integer(number)
                    case .real(let number): value = .real(number)
                    default:
                        Issue.record("#\(uid): \(field.key) refers to an object")
                        continue
                    }
                    resolved[field.key] = value
                    fields.append((field.key, .object(value)))
                } else {
                    resolved[field.key] = field.value
                    fields.append((field.key, .inline(field.value)))
                }
            }
            let archiver = KeyedArchiver(registry: ArchiveRegistry())
            try archiver.encode(ArchiveGenericObject(classes: ["NSValue", "NSObject"], fields: fields))
            found.append((uid, try archiver.finish(), resolved))
        }
        return found
    }

    /// Every NSValue of the corpus reads as Foundation on Linux reads it, and its text is what
    /// ours writes for the value read (so a rebuilt archive keeps the text).
    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func everyNSValueOfTheCorpusReadsAsFoundationReadsIt() throws {
        var counts: [Int: Int] = [:]
        for entry in ArchiveFixtures.entries {
            guard let graph = try? ArchiveGraph(bytes: ArchiveFixtures.bytes(entry)) else { continue }
            for found in try Self.specialValues(in: graph) {
                let ours = try FoundationDecoding.decode(ArchiveSpecialValue.self, found.alone)
                let foundation = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSValue.self, from: Data(found.alone))
                counts[ours.specialCode, default: 0] += 1
                switch ours {
                case .point(let point):
                    #expect(foundation?.pointValue == NSPoint(x: point.x, y: point.y), "\(entry) #\(found.uid)")
                    #expect(found.fields["NS.pointval"] == .string(GeometryText.pair(point.x, point.y)), "\(entry) #\(found.uid)")
                case .size(let size):
                    #expect(foundation?.sizeValue == NSSize(width: size.width, height: size.height), "\(entry) #\(found.uid)")
                    #expect(found.fields["NS.sizeval"] == .string(GeometryText.pair(size.width, size.height)), "\(entry) #\(found.uid)")
                case .rect(let rect):
                    #expect(foundation?.rectValue == NSRect(x: rect.origin.x, y: rect.origin.y, width: rect.size.width, height: rect.size.height), "\(entry) #\(found.uid)")
                    #expect(found.fields["NS.rectval"] == .string(GeometryText.rect(rect)), "\(entry) #\(found.uid)")
                case .range(let range):
                    #expect(foundation?.rangeValue == NSRange(location: range.location, length: range.length), "\(entry) #\(found.uid)")
                case .edgeInsets(let insets):
                    let theirs = foundation?.edgeInsetsValue
                    #expect(theirs.map { [Double($0.top), Double($0.left), Double($0.bottom), Double($0.right)] } == [insets.top, insets.left, insets.bottom, insets.right], "\(entry) #\(found.uid)")
                case .cgAffineTransform, .uiEdgeInsets, .offset, .directionalEdgeInsets:
                    // UIKit's structures: none in the corpus (UIKitValueTests reads Apple's shape).
                    Issue.record("\(entry) #\(found.uid): a UIKit NSValue the counts below do not expect")
                }
            }
        }
        print("Corpus NSValues read as Foundation reads them, by NS.special: \(counts.sorted { $0.key < $1.key })")
        #expect(counts == [2: 6, 3: 11, 4: 17, 12: 1], "\(counts)")
    }

    // MARK: Foundation on Linux, both ways

    static let samples: [ArchiveSpecialValue] = [
        .point(ArchivePoint(x: -1.5, y: 1e-7)),
        .size(ArchiveSize(width: 0.1, height: 1e300)),
        .rect(ArchiveRect(x: 1.0 / 3.0, y: -0.0, width: 123456789.125, height: 2)),
        .range(ArchiveRange(location: 0, length: Int.max)),
        .range(ArchiveRange(location: 7, length: 0)),
        .edgeInsets(ArchiveEdgeInsets(top: 0.5, left: -2, bottom: 1e20, right: 3)),
    ]

    static func foundationValue(_ value: ArchiveSpecialValue) -> NSValue {
        switch value {
        case .point(let point): return NSValue(point: NSPoint(x: point.x, y: point.y))
        case .size(let size): return NSValue(size: NSSize(width: size.width, height: size.height))
        case .rect(let rect): return NSValue(rect: NSRect(x: rect.origin.x, y: rect.origin.y, width: rect.size.width, height: rect.size.height))
        case .range(let range): return NSValue(range: NSRange(location: range.location, length: range.length))
        case .edgeInsets(let insets): return NSValue(edgeInsets: NSEdgeInsets(top: insets.top, left: insets.left, bottom: insets.bottom, right: insets.right))
        case .cgAffineTransform, .uiEdgeInsets, .offset, .directionalEdgeInsets:
            // Not among the samples: Foundation on Linux has no UIKit structures.
            return NSValue(range: NSRange(location: 0, length: 0))
        }
    }

    @Test func foundationOnLinuxReadsOursAndWeReadItsValues() throws {
        for sample in Self.samples {
            for format in [ArchiveFormat.binary, .xml] {
                let ours = try Self.archive(sample, format: format)
                let read = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSValue.self, from: Data(ours))
                #expect(read == Self.foundationValue(sample), "\(sample) \(format)")
            }
            let theirs = try NSKeyedArchiver.archivedData(withRootObject: Self.foundationValue(sample), requiringSecureCoding: true)
            #expect(try FoundationDecoding.decode(ArchiveSpecialValue.self, [UInt8](theirs)) == sample, "\(sample)")
        }
    }

    /// In a model, round trips in both formats, with one NSValue shared between two fields.
    struct Layout: KeyedArchivable, Equatable {
        var frame: ArchiveRect
        var anchor: ArchivePoint
        var minimum: ArchiveSize
        var selection: ArchiveRange
        var margins: ArchiveEdgeInsets
        var any: [ArchiveSpecialValue]

        init(frame: ArchiveRect, anchor: ArchivePoint, minimum: ArchiveSize, selection: ArchiveRange, margins: ArchiveEdgeInsets, any: [ArchiveSpecialValue]) {
            (self.frame, self.anchor, self.minimum, self.selection, self.margins, self.any) = (frame, anchor, minimum, selection, margins, any)
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            frame = try decoder.decode(ArchiveRect.self, forKey: "frame")
            anchor = try decoder.decode(ArchivePoint.self, forKey: "anchor")
            minimum = try decoder.decode(ArchiveSize.self, forKey: "minimum")
            selection = try decoder.decode(ArchiveRange.self, forKey: "selection")
            margins = try decoder.decode(ArchiveEdgeInsets.self, forKey: "margins")
            any = try decoder.decode([ArchiveSpecialValue].self, forKey: "any")
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(frame, forKey: "frame")
            try encoder.encode(anchor, forKey: "anchor")
            try encoder.encode(minimum, forKey: "minimum")
            try encoder.encode(selection, forKey: "selection")
            try encoder.encode(margins, forKey: "margins")
            try encoder.encode(any, forKey: "any")
        }
    }

    @Test func modelsRoundTripInBothFormats() throws {
        var registry = ArchiveRegistry()
        registry.register(Layout.self, className: "Layout")
        let layout = Layout(frame: ArchiveRect(x: 0, y: 0, width: 640, height: 480.5), anchor: ArchivePoint(x: .infinity, y: -.infinity),
                            minimum: ArchiveSize(width: 1e-300, height: 5e-324), selection: ArchiveRange(location: Int.max, length: 0),
                            margins: ArchiveEdgeInsets(top: 1, left: 2, bottom: 3, right: 4), any: Self.samples)
        for format in [ArchiveFormat.binary, .xml] {
            let bytes = try KeyedArchiver.archive(layout, registry: registry, format: format)
            #expect(try KeyedUnarchiver.unarchive(Layout.self, from: bytes, registry: registry) == layout, "\(format)")
        }
        // NaN survives as NaN (compared apart from Equatable, which NaN defeats).
        let nan = try FoundationDecoding.decode(ArchivePoint.self, Self.archive(ArchivePoint(x: .nan, y: 1)))
        #expect(nan.x.isNaN && nan.y == 1)
    }

    // MARK: Text

    /// Our `%.17g` against the C library's, on values from every part of the range.
    @Test func geometryNumbersArePrintedAsPrintfDoes() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0, -0.0, 1, -1, 0.1, 1.0 / 3.0, 1e16, 1e17, 123456789012345678, 1e-5, 1e-4, 9.999999999999999e-5,
                                .infinity, -.infinity, .nan, .greatestFiniteMagnitude, .leastNormalMagnitude, .leastNonzeroMagnitude, 2.5e-310]
        for _ in 0..<20_000 {
            values.append(Double(bitPattern: generator.next() & ~(UInt64(0x7FF) << 52) | (UInt64.random(in: 0x3C0...0x440, using: &generator) << 52)))
            values.append(Double(bitPattern: generator.next()))
        }
        var mismatches: [String] = []
        for value in values where !(value.isNaN && value.sign == .minus) {
            let expected = String(format: "%.17g", value)
            let ours = XMLRealText.percentG17(value)
            if ours != expected { mismatches.append("\(value.bitPattern): \(ours) ≠ \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    /// NSPointFromString's reading: the numbers in order, anything between them skipped, 0 for
    /// those missing.
    @Test func geometryTextIsReadAsFoundationReadsIt() {
        let cases: [(String, Int, [Double])] = [
            ("{{400, 300}, {200, 300}}", 4, [400, 300, 200, 300]),
            ("{1e+20, -2.5E-3}", 2, [1e20, -0.0025]),
            ("{ .5 ,+7. }", 2, [0.5, 7]),
            ("{3}", 2, [3, 0]),
            ("junk", 2, [0, 0]),
            ("", 4, [0, 0, 0, 0]),
            ("{1e, 2}", 2, [1, 2]),
            ("{1-2}", 2, [1, -2]),
            ("{inf, -Infinity}", 2, [.infinity, -.infinity]),
            ("{{1, 2}, {3, 4}, {5, 6}}", 4, [1, 2, 3, 4]),
            ("{1e999, -1e-999}", 2, [.infinity, -0.0]),
        ]
        for (text, count, expected) in cases {
            let read = GeometryText.numbers(in: text, count: count)
            #expect(read == expected && read.map(\.sign) == expected.map(\.sign), "\(text): \(read)")
        }
        #expect(GeometryText.numbers(in: "{nan, 1}", count: 2)[0].isNaN)
    }

    // MARK: Hostile values

    @Test func faultsAreNamedWithTheirKeys() throws {
        let cases: [(any ArchiveObjectDecodable.Type, [UInt8], ArchiveError.Code, String, String)] = [
            (ArchiveSpecialValue.self, try Self.hostile([("NS.special", Self.integer(7))]), .typeMismatch, "NS.special 7 names a structure with no mapping", "root.NS.special"),
            (ArchiveSpecialValue.self, try Self.hostile([("NS.rectval", .object("{1, 2}"))]), .typeMismatch, "without NS.special", "root.NS.special"),
            (ArchiveSpecialValue.self, try Self.hostile([("NS.special", .object("3"))]), .typeMismatch, "expected a number, found a string", "root.NS.special"),
            (ArchiveSpecialValue.self, try Self.hostile([("NS.special", Self.integer(3))]), .valueNotFound, "expected String, found no value", "root.NS.rectval"),
            (ArchiveSpecialValue.self, try Self.hostile([("NS.special", Self.integer(3)), ("NS.rectval", Self.integer(5))]), .typeMismatch, "found an integer", "root.NS.rectval"),
            (ArchiveSpecialValue.self, try Self.hostile([("NS.special", Self.integer(4)), ("NS.rangeval.location", Self.integer(-1)), ("NS.rangeval.length", Self.integer(1))]),
             .valueOutOfRange, "NS.rangeval.location is -1", "root.NS.rangeval.location"),
            (ArchiveSpecialValue.self, try Self.hostile([("NS.special", Self.integer(4)), ("NS.rangeval.location", Self.integer(1)), ("NS.rangeval.length", .inline(.integer(PropertyListInteger(UInt64.max))))]),
             .valueOutOfRange, "18446744073709551615 does not fit Int", "root.NS.rangeval.length"),
            (ArchiveSpecialValue.self, try Self.hostile([("NS.special", Self.integer(12)), ("NS.edgeval.top", .inline(.real(.float64(1))))]),
             .valueNotFound, "expected Double, found no value", "root.NS.edgeval.left"),
            (ArchiveRect.self, try Self.hostile([("NS.special", Self.integer(2)), ("NS.sizeval", .object("{1, 2}"))]),
             .typeMismatch, "expected an NSValue holding a rect, found one holding a size (NS.special 2)", "root"),
        ]
        for (type, bytes, code, message, keyPath) in cases {
            let error = FoundationDecoding.refusal(type, bytes)
            #expect(error?.code == code, "\(message): \(String(describing: error))")
            #expect(error?.message.contains(message) == true, "\(message): \(String(describing: error))")
            #expect(error?.keyPath.description == keyPath, "\(message): \(String(describing: error?.keyPath))")
            #expect(error?.uid?.value == 1, "\(message): \(String(describing: error))")
        }
        // Not an NSValue at all, and an NSValue where something else was asked for.
        let notAValue = FoundationDecoding.refusal(ArchiveRect.self, try Self.archive(ArchiveIndexSet()))
        #expect(notAValue?.code == .typeMismatch || notAValue?.code == .classNotAllowed, "\(String(describing: notAValue))")
        let valueAsIndexSet = FoundationDecoding.refusal(ArchiveIndexSet.self, try Self.archive(ArchiveRect(x: 1, y: 2, width: 3, height: 4)))
        #expect(valueAsIndexSet?.classChain == ["NSValue", "NSObject"], "\(String(describing: valueAsIndexSet))")
        // A registry without NSValue refuses it by name, before reading it.
        let narrow = ArchiveRegistry(foundationClasses: [.array])
        #expect(throws: ArchiveError.self) { try KeyedUnarchiver.unarchive(ArchiveRect.self, from: try Self.archive(ArchiveRect(x: 1, y: 2, width: 3, height: 4)), registry: narrow) }
    }

    /// A review's finding: distinct NSValues sharing one long text each scanned it — 4,000 of
    /// them over one 200 KB string, a 360 KB file, took a minute in a release build. The text's
    /// numbers are read once per string object. (Quadratic before: this test took minutes in a
    /// debug build; now well under a second.)
    @Test func distinctValuesSharingOneTextReadItOnce() throws {
        let long = ArchiveSharedValue(.string("{" + String(repeating: "x", count: 200_000) + "1, 2}"))
        var values: [any ArchiveObjectEncodable] = []
        for index in 0..<4_000 {
            values.append(ArchiveGenericObject(classes: Self.valueClasses, fields: [("NS.special", Self.integer(1)), ("NS.pointval", .object(long)), ("n", Self.integer(Int64(index)))]))
        }
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(ArchiveArray(values))
        let bytes = try archiver.finish()
        #expect(bytes.count < 500_000)
        let clock = ContinuousClock()
        let start = clock.now
        let points = try FoundationDecoding.decode([ArchivePoint].self, bytes)
        #expect(points.count == 4_000 && points.allSatisfy { $0 == ArchivePoint(x: 1, y: 2) })
        #expect(clock.now - start < .seconds(20), "\(clock.now - start)")
    }

    /// One NSValue holding a long text, referenced from every element of a large array, is read
    /// once: decoding costs the text once, not once per reference.
    @Test func aSharedValueIsReadOnce() throws {
        let long = "{" + String(repeating: "x", count: 200_000) + "1, 2}"
        let value = ArchiveGenericObject(classes: Self.valueClasses, fields: [("NS.special", Self.integer(1)), ("NS.pointval", .object(long))])
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(ArchiveArray(Array(repeating: value as any ArchiveObjectEncodable, count: 50_000)))
        let bytes = try archiver.finish()
        let points = try FoundationDecoding.decode([ArchivePoint].self, bytes)
        #expect(points.count == 50_000 && points.allSatisfy { $0 == ArchivePoint(x: 1, y: 2) })
    }
}
