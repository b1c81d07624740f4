/// A `Codable` coding path kept as a chain of nodes, each pointing at its parent: going one
/// level deeper adds a node instead of copying the keys above it. As arrays, the paths of a
/// value nested N levels deep cost N²/2 key copies — minutes for a tree a raised depth limit
/// admits (issue 31). The array a `Decoder` or `Encoder` must show is built only when asked for.
struct CodingPath {
    private final class Node {
        let parent: Node?
        let key: any CodingKey
        init(parent: Node?, key: any CodingKey) {
            self.parent = parent
            self.key = key
        }
    }
    private let last: Node?
    /// How many keys the path holds.
    let count: Int

    static var root: CodingPath { CodingPath(last: nil, count: 0) }

    private init(last: Node?, count: Int) {
        self.last = last
        self.count = count
    }

    func appending(_ key: any CodingKey) -> CodingPath {
        CodingPath(last: Node(parent: last, key: key), count: count &+ 1)
    }

    /// The keys from the top.
    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        keys.reserveCapacity(count)
        var node = last
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        keys.reverse()
        return keys
    }
}
