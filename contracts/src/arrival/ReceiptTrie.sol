// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../IPaymentRouter.sol";
import {Rlp} from "./Rlp.sol";

/// @title ReceiptTrie
/// @notice Inclusion proofs in a block's receipt trie: the Merkle-Patricia trie (yellow paper, appendix D) whose
///         root is the header's receiptsRoot and whose key for transaction i is rlp(i) (not hashed).
/// @dev The proof is the list of RLP-encoded nodes from the root down to the leaf. Each node must hash to the
///      reference its parent holds (the root for the first), so the value returned is exactly what the trie
///      holds under the key. Every child is required to be referenced by a 32-byte hash: nodes shorter than 32
///      bytes are embedded in their parent instead, which never happens in a receipt trie (each leaf carries a
///      256-byte bloom, so every node is longer than 32 bytes); refusing them keeps this code small.
library ReceiptTrie {
    /// @dev The value stored under `key` in the trie with root `root`, proven by `proof`; reverts with
    ///      ReceiptProofInvalid(node index) unless `proof` is a valid path that ends at `key`'s value.
    function get(bytes32 root, bytes memory key, bytes[] calldata proof) internal pure returns (bytes calldata value) {
        uint256 last = proof.length;
        if (last == 0) revert IPaymentRouter.ReceiptProofInvalid(0);
        --last;
        value = proof[0][:0];
        uint256 consumed; // nibbles of the key matched so far
        bytes32 expected = root;
        for (uint256 i;; ++i) {
            if (keccak256(proof[i]) != expected) revert IPaymentRouter.ReceiptProofInvalid(i);
            bool end;
            (end, expected, consumed, value) = _step(Rlp.list(proof[i]), key, consumed, i);
            // The path must end exactly at the last node given.
            if (end != (i == last)) revert IPaymentRouter.ReceiptProofInvalid(i);
            if (end) return value;
        }
    }

    /// @dev One node (its list payload `items`), with `consumed` key nibbles matched before it: either the end of
    ///      the path (`end`, the non-empty `value`) or the hash of the `next` node and the nibbles now matched.
    function _step(bytes calldata items, bytes memory key, uint256 consumed, uint256 i)
        private
        pure
        returns (bool end, bytes32 next, uint256 consumedAfter, bytes calldata value)
    {
        value = items[:0];
        uint256 n = Rlp.count(items);
        bytes calldata ref;
        if (n == 17) {
            // Branch: 16 children by the next key nibble, then the value of a key that ends here.
            end = consumed == key.length * 2;
            ref = Rlp.str(Rlp.at(items, end ? 16 : _nibble(key, consumed)));
            consumedAfter = end ? consumed : consumed + 1;
        } else if (n == 2) {
            (end, consumedAfter, ref) = _shortNode(items, key, consumed, i);
        } else {
            revert IPaymentRouter.ReceiptProofInvalid(i);
        }
        if (end) {
            if (ref.length == 0) revert IPaymentRouter.ReceiptProofInvalid(i);
            value = ref;
        } else {
            if (ref.length != 32) revert IPaymentRouter.ReceiptProofInvalid(i);
            // ref.length == 32, checked above.
            // forge-lint: disable-next-line(unsafe-typecast)
            next = bytes32(ref);
        }
    }

    /// @dev Leaf or extension: a hex-prefix encoded path, then the value (leaf) or the child's hash (extension).
    ///      A leaf must end the key.
    function _shortNode(bytes calldata items, bytes memory key, uint256 consumed, uint256 i)
        private
        pure
        returns (bool leaf, uint256 consumedAfter, bytes calldata ref)
    {
        uint256 matched;
        (matched, leaf) = _matchPath(Rlp.str(Rlp.at(items, 0)), key, consumed);
        if (matched == type(uint256).max) revert IPaymentRouter.ReceiptProofInvalid(i);
        consumedAfter = consumed + matched;
        if (leaf && consumedAfter != key.length * 2) revert IPaymentRouter.ReceiptProofInvalid(i);
        ref = Rlp.str(Rlp.at(items, 1));
    }

    /// @dev Matches a hex-prefix encoded `path` against `key` from nibble `from`. Returns the number of nibbles
    ///      the path holds and whether the node is a leaf, or type(uint256).max for `matched` on a mismatch.
    ///      Hex-prefix: the first nibble's bit 1 marks a leaf, bit 0 an odd length; an odd path starts in the
    ///      second nibble of the first byte, an even one in the second byte.
    function _matchPath(bytes calldata path, bytes memory key, uint256 from)
        private
        pure
        returns (uint256 matched, bool leaf)
    {
        if (path.length == 0) return (type(uint256).max, false);
        uint256 flag = uint8(path[0]) >> 4;
        if (flag > 3) return (type(uint256).max, false);
        leaf = flag >= 2;
        uint256 skip = flag & 1 == 1 ? 1 : 2; // nibbles of the prefix
        uint256 total = path.length * 2 - skip;
        if (from + total > key.length * 2) return (type(uint256).max, leaf);
        for (uint256 j; j < total; ++j) {
            uint256 p = j + skip;
            uint256 pathNibble = p % 2 == 0 ? uint8(path[p / 2]) >> 4 : uint8(path[p / 2]) & 0x0f;
            if (pathNibble != _nibble(key, from + j)) return (type(uint256).max, leaf);
        }
        matched = total;
    }

    function _nibble(bytes memory key, uint256 i) private pure returns (uint256) {
        uint8 b = uint8(key[i / 2]);
        return i % 2 == 0 ? b >> 4 : b & 0x0f;
    }
}
