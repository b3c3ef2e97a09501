// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RlpWriter} from "./RlpWriter.sol";

/// @notice Builds a Merkle-Patricia trie (yellow paper, appendix D) in memory for tests, returning its root and
///         the proof (nodes from the root down) of one key. Branch, extension and leaf nodes as the chain builds
///         them; a node shorter than 32 bytes is embedded in its parent. Keys must be prefix-free (receipt-trie
///         keys rlp(i) are).
library TrieBuilder {
    struct Entry {
        bytes nibbles; // one nibble per byte
        bytes value;
        bool target;
    }

    function build(bytes[] memory keys, bytes[] memory values, uint256 target)
        internal
        pure
        returns (bytes32 root, bytes[] memory proof)
    {
        Entry[] memory entries = new Entry[](keys.length);
        for (uint256 i; i < keys.length; ++i) {
            entries[i] = Entry(_nibbles(keys[i]), values[i], i == target);
        }
        bytes memory node;
        (node, proof) = _node(entries, 0);
        root = keccak256(node);
    }

    /// @dev The node for `entries` (all sharing their first `depth` nibbles) and, if the target is among them,
    ///      the proof from this node down.
    function _node(Entry[] memory entries, uint256 depth)
        private
        pure
        returns (bytes memory node, bytes[] memory path)
    {
        bytes[] memory childPath;
        if (entries.length == 1) {
            bytes[] memory leaf = new bytes[](2);
            leaf[0] = RlpWriter.bytes_(_hexPrefix(entries[0].nibbles, depth, entries[0].nibbles.length, true));
            leaf[1] = RlpWriter.bytes_(entries[0].value);
            node = RlpWriter.list(leaf);
        } else {
            uint256 shared = _shared(entries, depth);
            if (shared > 0) {
                bytes memory child;
                (child, childPath) = _node(entries, depth + shared);
                bytes[] memory ext = new bytes[](2);
                ext[0] = RlpWriter.bytes_(_hexPrefix(entries[0].nibbles, depth, depth + shared, false));
                ext[1] = _ref(child);
                node = RlpWriter.list(ext);
            } else {
                (node, childPath) = _branch(entries, depth);
            }
        }
        if (!_hasTarget(entries)) return (node, new bytes[](0));
        path = new bytes[](childPath.length + 1);
        path[0] = node;
        for (uint256 i; i < childPath.length; ++i) {
            path[i + 1] = childPath[i];
        }
    }

    function _branch(Entry[] memory entries, uint256 depth)
        private
        pure
        returns (bytes memory node, bytes[] memory childPath)
    {
        bytes[] memory items = new bytes[](17);
        for (uint256 nib; nib < 16; ++nib) {
            uint256 n;
            for (uint256 i; i < entries.length; ++i) {
                if (uint8(entries[i].nibbles[depth]) == nib) ++n;
            }
            if (n == 0) {
                items[nib] = hex"80";
                continue;
            }
            Entry[] memory group = new Entry[](n);
            n = 0;
            for (uint256 i; i < entries.length; ++i) {
                if (uint8(entries[i].nibbles[depth]) == nib) group[n++] = entries[i];
            }
            (bytes memory child, bytes[] memory p) = _node(group, depth + 1);
            items[nib] = _ref(child);
            if (p.length != 0) childPath = p;
        }
        items[16] = hex"80";
        node = RlpWriter.list(items);
    }

    /// @dev How a parent refers to a child: by hash, or embedded when it is shorter than 32 bytes.
    function _ref(bytes memory child) private pure returns (bytes memory) {
        return child.length < 32 ? child : RlpWriter.bytes32_(keccak256(child));
    }

    function _shared(Entry[] memory entries, uint256 depth) private pure returns (uint256 n) {
        while (true) {
            bytes memory first = entries[0].nibbles;
            if (depth + n >= first.length) return n;
            for (uint256 i = 1; i < entries.length; ++i) {
                bytes memory k = entries[i].nibbles;
                if (depth + n >= k.length || k[depth + n] != first[depth + n]) return n;
            }
            ++n;
        }
    }

    function _hasTarget(Entry[] memory entries) private pure returns (bool) {
        for (uint256 i; i < entries.length; ++i) {
            if (entries[i].target) return true;
        }
        return false;
    }

    /// @dev Hex-prefix encoding of nibbles[from:to] with the leaf flag.
    function _hexPrefix(bytes memory nibbles, uint256 from, uint256 to, bool leaf) private pure returns (bytes memory) {
        uint256 n = to - from;
        uint256 flag = (leaf ? 2 : 0) + (n % 2);
        bytes memory out = new bytes(n / 2 + 1);
        uint256 j = from;
        if (n % 2 == 1) {
            out[0] = bytes1(uint8(flag << 4) | uint8(nibbles[j++]));
        } else {
            out[0] = bytes1(uint8(flag << 4));
        }
        for (uint256 i = 1; i < out.length; ++i) {
            out[i] = bytes1((uint8(nibbles[j]) << 4) | uint8(nibbles[j + 1]));
            j += 2;
        }
        return out;
    }

    function _nibbles(bytes memory key) private pure returns (bytes memory out) {
        out = new bytes(key.length * 2);
        for (uint256 i; i < key.length; ++i) {
            out[2 * i] = bytes1(uint8(key[i]) >> 4);
            out[2 * i + 1] = bytes1(uint8(key[i]) & 0x0f);
        }
    }
}
