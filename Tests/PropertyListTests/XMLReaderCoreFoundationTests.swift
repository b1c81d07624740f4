import Foundation
import Testing
@testable import PropertyList

/// Our reader against Core Foundation's own XML parser, which Foundation on Linux runs
/// (`PropertyListSerialization` calls `CFPropertyListCreateWithData`): for every input, both
/// accept with the same value or both reject. The inputs are the odd corners of the reading
/// rules in `xml-format-notes.md` (found by probing the parser) and generated field values.
@Suite struct XMLReaderCoreFoundationTests {
    /// One input per line. `\xHH` stands for a raw byte, `\n`, `\r`, `\t`, `\0` for
    /// those characters.
    static let probes = #"""
<date>2001-1-01T00:00:00Z</date>
<date>12345678901234-01-01T00:00:00Z</date>
<date>2147483647-01-01T00:00:00Z</date>
<date>2147483648-01-01T00:00:00Z</date>
<date>-2147483648-01-01T00:00:00Z</date>
<date>99999999999999999999999-01-01T00:00:00Z</date>
<date>2001-01-01T00:00:00Z </date>
<date>2001-001-01T00:00:00Z</date>
<date>2001-01-01T00:00:0Z</date>
<date>2001-13-01T00:00:00Z</date>
<date>2001-00-00T00:00:00Z</date>
<date>2001-01-01T99:99:99Z</date>
<date>+2001-01-01T00:00:00Z</date>
<date>--2001-01-01T00:00:00Z</date>
<date>-0001-01-01T00:00:00Z</date>
<date>-0000-01-01T00:00:00Z</date>
<date>1-01-01T00:00:00Z</date>
<date>-01-01T00:00:00Z</date>
<date>0000-12-30T00:00:00Z</date>
<date>2001-01-01T00:00:00z</date>
<date>2001-01-01T00:00:00Z<!-- c --></date>
<date><![CDATA[2001-01-01T00:00:00Z]]></date>
<integer>1</integer>
<integer>  1</integer>
<integer>\t\n1</integer>
<integer>1 </integer>
<integer>+1</integer>
<integer>- 1</integer>
<integer>-0x10</integer>
<integer>0X1f</integer>
<integer>0x</integer>
<integer>0xFFFFFFFFFFFFFFFF</integer>
<integer>0x10000000000000000</integer>
<integer>-0x8000000000000000</integer>
<integer>-0x8000000000000001</integer>
<integer>0001</integer>
<integer>1.0</integer>
<integer></integer>
<integer>-</integer>
<integer>&#49;</integer>
<integer><![CDATA[1]]></integer>
<integer>1<!-- c --></integer>
<integer>\x011</integer>
<integer>\x7f1</integer>
<integer>\xc2\xa01</integer>
<integer>18446744073709551615</integer>
<integer>18446744073709551616</integer>
<integer>-9223372036854775808</integer>
<integer>-9223372036854775809</integer>
<integer>-18446744073709551615</integer>
<real>1</real>
<real> 1</real>
<real>1 </real>
<real>&#49;.5</real>
<real><![CDATA[2.5]]></real>
<real>NaN</real>
<real>-nan</real>
<real>+nan</real>
<real>Inf</real>
<real>-Infinity</real>
<real>+INF</real>
<real>infinit</real>
<real>1e400</real>
<real>-1e400</real>
<real>1e-400</real>
<real>.</real>
<real>.e1</real>
<real>1e+</real>
<real>1.2.3</real>
<real>--1</real>
<real>+-1</real>
<real>1e5e5</real>
<real>0x10</real>
<real>1,5</real>
<real>5.</real>
<real>-0</real>
<real>1-2</real>
<real>e5</real>
<real></real>
<real>\t\n2.5</real>
<real>\x012.5</real>
<true/>
<true></true>
<true>x</true>
<true> </true>
<true><!-- c --></true>
<true / >
<true/ >
<false />
<true attr="1"/>
<true attr="a>b"/>
<TRUE/>
<data></data>
<data/>
<data>AAE</data>
<data>AAECAw==</data>
<data>AA==AA==</data>
<data>A=A=</data>
<data>=AAA</data>
<data>AAAA====AAAA</data>
<data>AQID&#61;</data>
<data>AQ\xc3\xa9ID</data>
<data><![CDATA[AQID]]></data>
<data>AQ<!-- c -->ID</data>
<data>AQ&amp;ID</data>
<string>a\rb\r\nc</string>
<string>\x01\x02\x00</string>
<string>a]]>b</string>
<string>a>b"c'd</string>
<string>&#x1F600;</string>
<string>&#X41;</string>
<string>&#65</string>
<string>&#;</string>
<string>&#x;</string>
<string>&#x110000;</string>
<string>&#xD800;</string>
<string>&#0;</string>
<string>&#000000065;</string>
<string>&#00000065;</string>
<string>&#x0000000041;</string>
<string>&#x00000041;</string>
<string>&#xFFFE;</string>
<string>&amp</string>
<string>&AMP;</string>
<string>&nbsp;</string>
<string>&lt;&gt;&amp;&apos;&quot;</string>
<string><![CDATA[a<b>&c]]></string>
<string><![CDATA[a]]]]><![CDATA[>b]]></string>
<string>a<![CDATA[x</string>
<string>a<!-- c -->b</string>
<string>a<?pi?>b</string>
<string>\xc3\xa9</string>
<string>\xc3</string>
<string>\xc0\x80</string>
<string>\xed\xa0\x80</string>
<string>\xf4\x90\x80\x80</string>
<string>\xef\xbf\xbf</string>
<string/>
<string></string>
<string></strin>
<string>a</string >
<string>a</ string>
<string>a</key>
<key>k</key>
<plist><string>a</string></plist>
<plist></plist>
<plist/>
<plist> <!-- c --> <string>a</string> <!-- d --> </plist>
<plist><string>a</string><string>b</string></plist>
<plist><string>a</string>junk</plist>
<plist><string>a</string></plistx>
<plist><string>a</string>
<plist><plist><true/></plist></plist>
<plist version="1.0"><true/></plist>garbage<<<
\xef\xbb\xbf<true/>
  \n<true/>
\x0c<true/>
<?xml version="1.0" encoding="UTF-8"?><true/>
<?xml version="1.0" encoding="utf-8"?><true/>
<?xml version="1.0" encoding="ISO-8859-1"?><string>\xe9</string>
<?xml version="1.0" encoding="latin1"?><string>\xe9</string>
<?xml version="1.0" encoding="windows-1252"?><string>\x80</string>
<?xml version="1.0" encoding="macintosh"?><string>\x80</string>
<?xml version="1.0" encoding="bogus"?><true/>
<?xml version="1.0" encoding="US-ASCII"?><string>a</string>
<?xml version="1.0" encoding='UTF-8'?><true/>
<?xml version="1.0"?><!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "x"><true/>
<!DOCTYPE plist [ ]><true/>
<!ELEMENT x><true/>
<!-- a --><true/>
<!-- a -- b --><true/>
<?pi?><true/>
<array><true/><!-- c --><false/></array>
<array> x <true/></array>
<array><true/> x </array>
<array>\x0c<true/></array>
<array><key>k</key></array>
<array><plist/></array>
<array><set/></array>
<array/>
<array></array>
<array></dict>
<dict><key>a</key><!-- c --><true/></dict>
<dict><key>a</key><true/><key>a</key><false/></dict>
<dict><key>a</key><key>b</key></dict>
<dict><key>a</key><true/><key>b</key></dict>
<dict><string>a</string><true/></dict>
<dict><key/><true/></dict>
<dict/>
<dict></dict>
<dict><key>CF$UID</key><integer>4294967297</integer></dict>
<dict><key>CF$UID</key><integer>-1</integer></dict>
<dict><key>CF$UID</key><integer>0x10</integer></dict>
<dict><key>CF$UID</key><real>2.7</real></dict>
<dict><key>CF$UID</key><real>-2.7</real></dict>
<dict><key>CF$UID</key><real>1e300</real></dict>
<dict><key>CF$UID</key><real>nan</real></dict>
<dict><key>CF$UID</key><string>1</string></dict>
<dict><key>CF$UID</key><true/></dict>
<dict><key>CF$UID</key><integer>1</integer><key>x</key><true/></dict>
<dict><key>CF$UID</key><integer>1</integer><key>CF$UID</key><integer>2</integer></dict>
<dict><key>CF$UID</key><dict/></dict>
<set/>
<String>a</String>
<string attr="x">a</string>
<string	x>a</string>
<string/x>
<date>2001-14-01T00:00:00Z</date>
<date>2001-15-01T00:00:00Z</date>
<date>2001-16-01T00:00:00Z</date>
<date>2001-17-01T00:00:00Z</date>
<date>2001-20-01T00:00:00Z</date>
<date>2001-31-01T00:00:00Z</date>
<date>2001-32-01T00:00:00Z</date>
<date>2001-50-01T00:00:00Z</date>
<date>2001-99-01T00:00:00Z</date>
<date>2000-13-01T00:00:00Z</date>
<date>2000-00-01T00:00:00Z</date>
<date>2000-03-00T00:00:00Z</date>
<date>2001-01-99T99:99:99Z</date>
<dict><key>CF$UID</key><real>2147483647.5</real></dict>
<dict><key>CF$UID</key><real>2147483648</real></dict>
<dict><key>CF$UID</key><real>3e9</real></dict>
<dict><key>CF$UID</key><real>-3e9</real></dict>
<dict><key>CF$UID</key><real>4294967297</real></dict>
<dict><key>CF$UID</key><real>1e19</real></dict>
<dict><key>CF$UID</key><real>-1e19</real></dict>
<dict><key>CF$UID</key><real>-0.5</real></dict>
<dict><key>CF$UID</key><real>-inf</real></dict>
<dict><key>CF$UID</key><integer>18446744073709551615</integer></dict>
<dict><key>CF$UID</key><integer>-9223372036854775808</integer></dict>
<date>2005-20-05T01:00:00Z</date>
<date>2005-14-05T01:00:00Z</date>
<date>2005-15-05T01:00:00Z</date>
<date>2005-16-05T01:00:00Z</date>
<date>2004-16-05T01:00:00Z</date>
<date>2004-99-05T01:00:00Z</date>
<date>2004-13-05T01:00:00Z</date>
<date>2004-14-05T01:00:00Z</date>
<date>2004-03-05T01:00:00Z</date>
<date>-0400-03-05T01:00:00Z</date>
<date>-0401-03-05T01:00:00Z</date>
<date>0000-03-05T01:00:00Z</date>
<date>-2147483647-03-05T01:00:00Z</date>
<date>4294967297-03-05T01:00:00Z</date>
<date>2147485648-03-05T01:00:00Z</date>
<date>2147485649-03-05T01:00:00Z</date>
<real>\x0b2.5</real>
<real>\x0c2.5</real>
<real>\x1c2.5</real>
<real>\x1f2.5</real>
<real> 2.5</real>
<real>\xc2\xa02.5</real>
<real>\xc2\x852.5</real>
<real>\xe2\x80\x802.5</real>
<real>\xe2\x80\xa82.5</real>
<real>\xe3\x80\x802.5</real>
<real>\x7f2.5</real>
<real>&#x20;2.5</real>
<real>+.5</real>
<real>-.5e-3</real>
<real>1.7976931348623157e308</real>
<real>1.7976931348623159e308</real>
<real>2.4703282292062328e-324</real>
<real>2.4703282292062327e-324</real>
<real>0.000000000000000000000000000000000000000000001</real>
<real>123456789012345678901234567890</real>
<real>00001.5</real>
<real>1E+3</real>
<real>1e-3</real>
<integer>\xe2\x80\x801</integer>
<integer>\xe2\x80\xaf1</integer>
<integer>\xe2\x81\x9f1</integer>
<integer>\xe3\x80\x801</integer>
<integer>\xe2\x80\x4f1</integer>
<integer>\xe2\x80\x501</integer>
<integer>\xa01</integer>
<integer>\xa11</integer>
<integer>\x801</integer>
<integer>-\x7f1</integer>
<integer>0x 1</integer>
<integer>00x1</integer>
<integer>0x00</integer>
<integer>-0x0</integer>
<integer>0</integer>
<integer>-000</integer>
<?xml version="1.0" encoding="utf8"?><string>\xc3\xa9</string>
<?xml version="1.0" encoding="UTF8"?><string>\xc3\xa9</string>
<?xml version="1.0" encoding="UTF-16"?><string>a</string>
<?xml version="1.0" encoding="x-mac-roman"?><string>\x80</string>
<?xml version="1.0" encoding="macintosh"?><string>\x80\xdb\xf0</string>
<?xml version="1.0" encoding="MacRoman"?><string>\x80</string>
<?xml version="1.0" encoding="cp1252"?><string>\x80</string>
<?xml version="1.0" encoding="windows-1252"?><string>\x81\x8d\x8f\x90\x9d</string>
<?xml version="1.0" encoding="ISO_8859-1"?><string>\xe9</string>
<?xml version="1.0" encoding="ISO-8859-1"?><string>\x80</string>
<?xml version="1.0" encoding="ascii"?><string>a</string>
<?xml version="1.0" encoding="us-ascii"?><string>a</string>
<?xml version="1.0" encoding="us-ascii"?><string>\xe9</string>
<?xml version="1.0" encoding="US-ASCII"?><string>\xc3\xa9</string>
<?xml version="1.0" encoding="iso-8859-15"?><string>\xa4</string>
<?xml version="1.0" encoding=""?><string>a</string>
<?xml version="1.0" encoding=utf-8?><string>a</string>
<?xml version="1.0" encoding="utf-8?><string>a</string>
<?xml encoding="bogus" version="1.0"?><string>a</string>
<?xml version="1.0"?><?xml encoding="bogus"?><string>a</string>
 <?xml version="1.0" encoding="bogus"?><string>a</string>
<?xml version="1.0" encoding = "bogus"?><string>a</string>
<?xml version="1.0" myencoding="bogus"?><string>a</string>
<?xml version="1.0" encoding="latin1"?><integer>\x801</integer>
<?xml version="1.0" encoding="latin1"?><integer>\xa01</integer>
<!---->
<!----><true/>
<array><!----><true/></array>
<!--x--><true/>
<!-->--><true/>
<array><!-->--><true/></array>
<
<a
<true/
 <true/>
<true></true
<true></true >
<true></truex>
<array><true/></array >
<array><true/></array
<dict><key>a</key><plist><true/></plist></dict>
<dict><plist><key>a</key></plist><true/></dict>
<array><plist><true/></plist></array>
<array><plist></plist></array>
<plist><plist><true/></plist><false/></plist>
<string>a&#x00000041;</string>
<string>&#xFFFFFFFF;</string>
<string>&#99999999;</string>
<string>&#123456789;</string>
<string>&#</string>
<string>&#x</string>
<string>&a</string>
<string>&ap</string>
<string>&lt</string>
<string>&quo</string>
<string>&quot</string>
"""#

    static func decodeProbe(_ line: Substring) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = line
        while let character = rest.first {
            rest = rest.dropFirst()
            guard character == "\\", let next = rest.first else {
                bytes.append(contentsOf: String(character).utf8)
                continue
            }
            rest = rest.dropFirst()
            switch next {
            case "n": bytes.append(0x0A)
            case "r": bytes.append(0x0D)
            case "t": bytes.append(0x09)
            case "0": bytes.append(0x00)
            case "x":
                bytes.append(UInt8(rest.prefix(2), radix: 16) ?? 0)
                rest = rest.dropFirst(2)
            default:
                bytes.append(0x5C)
                bytes.append(contentsOf: String(next).utf8)
            }
        }
        return bytes
    }

    enum Outcome: Equatable, CustomStringConvertible {
        case value(PropertyListValue)
        case rejected

        var description: String {
            switch self {
            case .value(let value): return "\(value)"
            case .rejected: return "rejected"
            }
        }
    }

    /// Keys in one canonical order, so that values compare whatever order each reader kept.
    static func sortedKeys(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .array(let elements): return .array(elements.map(sortedKeys))
        case .dictionary(let dictionary):
            let entries = XMLKeyOrder.sorted(dictionary.entries).map { PropertyListDictionary.Entry(key: $0.key, value: sortedKeys($0.value)) }
            return .dictionary(PropertyListDictionary(entries: entries))
        default: return value
        }
    }

    /// Core Foundation's reading, turned into our value model through its binary writer (which
    /// keeps every value, UIDs included) and our binary reader.
    static func coreFoundation(_ bytes: [UInt8]) -> Outcome {
        guard let object = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil),
              let binary = try? PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0),
              let value = try? BinaryPropertyListReader.readValue([UInt8](binary)) else { return .rejected }
        return .value(sortedKeys(value))
    }

    static func ours(_ bytes: [UInt8]) -> Outcome {
        guard let value = try? XMLPropertyListReader.read(bytes).value else { return .rejected }
        return .value(sortedKeys(value))
    }

    @Test func probesAgreeWithCoreFoundation() {
        var compared = 0
        for line in Self.probes.split(separator: "\n") {
            let bytes = Self.decodeProbe(line)
            #expect(Self.ours(bytes) == Self.coreFoundation(bytes), "\(line)")
            compared += 1
        }
        #expect(compared > 300)
    }

    /// Encodings Core Foundation converts with ICU that we refuse rather than guess at; every
    /// encoding a property list was written in in practice (UTF-8, UTF-16, UTF-32, ASCII,
    /// Latin-1, Windows-1252, Latin-9) is read.
    @Test func encodingsWeDoNotConvert() {
        for name in ["ISO-8859-2", "shift_jis", "koi8-r", "EBCDIC-US"] {
            let bytes = Array("<?xml version=\"1.0\" encoding=\"\(name)\"?><string>a</string>".utf8)
            #expect(throws: PropertyListError.self) { try XMLPropertyListReader.read(bytes) }
        }
    }

    /// Dates with every kind of field: digits wrapping the 32-bit year, months 0 and 13 and
    /// beyond the table, days, hours, minutes and seconds past their ranges, and malformed ones.
    @Test(arguments: [UInt64(1), 2])
    func generatedDatesAgreeWithCoreFoundation(seed: UInt64) {
        var generator = RandomPropertyListGenerator(seed: seed)
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(Unicode.Scalar(UInt8(48 + generator.below(10)))) })
        }
        for index in 0..<400 {
            let year = generator.below(8) == 0 ? digits(1 + generator.below(14)) : String(generator.below(2) == 0 ? 1 + generator.below(4000) : 1990 + generator.below(60))
            let sign = generator.below(6) == 0 ? "-" : ""
            var fields = [digits(2), digits(2), digits(2), digits(2), digits(2)]
            if generator.below(2) == 0 {
                fields = [String(format: "%02d", 1 + generator.below(12)), String(format: "%02d", 1 + generator.below(28)), String(format: "%02d", generator.below(24)), String(format: "%02d", generator.below(60)), String(format: "%02d", generator.below(60))]
            }
            var text = "\(sign)\(year)-\(fields[0])-\(fields[1])T\(fields[2]):\(fields[3]):\(fields[4])Z"
            if generator.below(10) == 0 {
                // A malformed variant: a character dropped, doubled or replaced.
                var characters = Array(text)
                let position = generator.below(characters.count)
                switch generator.below(3) {
                case 0: characters.remove(at: position)
                case 1: characters.insert(characters[position], at: position)
                default: characters[position] = ["x", " ", ".", "+", "9"][generator.below(5)]
                }
                text = String(characters)
            }
            let bytes = Array("<date>\(text)</date>".utf8)
            #expect(Self.ours(bytes) == Self.coreFoundation(bytes), "seed \(seed), date \(index): \(text)")
        }
    }

    /// Integers and reals as text in every form the grammar allows and many it does not.
    @Test(arguments: [UInt64(3), 4])
    func generatedNumbersAgreeWithCoreFoundation(seed: UInt64) {
        var generator = RandomPropertyListGenerator(seed: seed)
        let pieces = ["0", "1", "7", "9", "00", "0x", "0X", "-", "+", " ", "\t", "a", "F", "e", "E", ".", "18446744073709551615", "9223372036854775808", "\u{7F}", "\u{A0}", "\u{2003}", "\u{3000}", "inf", "nan", "ity"]
        for index in 0..<600 {
            var text = ""
            for _ in 0..<(1 + generator.below(5)) { text += pieces[generator.below(pieces.count)] }
            for element in ["integer", "real"] {
                let bytes = Array("<\(element)>\(text)</\(element)>".utf8)
                #expect(Self.ours(bytes) == Self.coreFoundation(bytes), "seed \(seed), \(element) \(index): \(text.debugDescription)")
            }
        }
    }

    /// `CF$UID` dictionaries with integer and real values across the 32-bit boundaries.
    @Test func uidValuesAgreeWithCoreFoundation() {
        let values = ["0", "1", "-1", "4294967295", "4294967296", "4294967297", "18446744073709551615", "-9223372036854775808", "0x7FFFFFFF", "2147483648"]
        let reals = ["0.5", "-0.5", "2.7", "-2.7", "2147483647.9", "2147483648", "-2147483648", "-2147483649", "4294967296.5", "1e10", "-1e10", "nan", "inf", "-inf"]
        for text in values {
            let bytes = Array("<dict><key>CF$UID</key><integer>\(text)</integer></dict>".utf8)
            #expect(Self.ours(bytes) == Self.coreFoundation(bytes), "integer \(text)")
        }
        for text in reals {
            let bytes = Array("<dict><key>CF$UID</key><real>\(text)</real></dict>".utf8)
            #expect(Self.ours(bytes) == Self.coreFoundation(bytes), "real \(text)")
        }
    }
}
