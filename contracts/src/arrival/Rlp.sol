// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../IPaymentRouter.sol";

/// @title Rlp
/// @notice A minimal reader of RLP (Ethereum's Recursive Length Prefix encoding) over calldata, enough to walk a
///         block header, receipt-trie nodes and a receipt's logs.
/// @dev Why our own and not Optimism's RLPReader: its npm releases that build with solc 0.8.30 pin a pnpm-only
///      preinstall script (`npx only-allow pnpm`) that breaks `npm ci`, and the later ones pin solc 0.8.15.
///      Calldata slices make every read bounds-checked by the compiler: a length that runs past the input
///      reverts instead of reading beyond it. Callers only decode bytes already authenticated by a hash (the
///      header by its block hash, trie nodes by their parent), so this needs to be correct on well-formed input
///      and safe (reverting) on anything else; it does not insist on canonical encodings.
library Rlp {
    /// @dev Splits the first RLP item off `data`: its payload (without the length prefix), whether it is a
    ///      list, and what follows it.
    function next(bytes calldata data)
        internal
        pure
        returns (bytes calldata payload, bool isList, bytes calldata rest)
    {
        if (data.length == 0) revert IPaymentRouter.ArrivalProofMalformed();
        uint256 b = uint8(data[0]);
        uint256 offset;
        uint256 length;
        if (b < 0x80) {
            (offset, length) = (0, 1); // a single byte is its own payload
        } else if (b < 0xb8) {
            (offset, length) = (1, b - 0x80); // string of 0..55 bytes
        } else if (b < 0xc0) {
            (offset, length) = _long(data, b - 0xb7); // longer string: big-endian length follows
        } else if (b < 0xf8) {
            (offset, length, isList) = (1, b - 0xc0, true); // list of 0..55 bytes
        } else {
            (offset, length) = _long(data, b - 0xf7); // longer list
            isList = true;
        }
        payload = data[offset:offset + length];
        rest = data[offset + length:];
    }

    /// @dev The payload of `data`, which must hold exactly one list item and nothing after it.
    function list(bytes calldata data) internal pure returns (bytes calldata items) {
        bool isList;
        bytes calldata rest;
        (items, isList, rest) = next(data);
        if (!isList || rest.length != 0) revert IPaymentRouter.ArrivalProofMalformed();
    }

    /// @dev Item `index` (0-based) of a list payload, with its own prefix (so it can be decoded again).
    function at(bytes calldata items, uint256 index) internal pure returns (bytes calldata item) {
        bytes calldata rest = items;
        for (uint256 i; i < index; ++i) {
            (,, rest) = next(rest);
        }
        (,, bytes calldata after_) = next(rest);
        item = rest[:rest.length - after_.length];
    }

    /// @dev How many items a list payload holds.
    function count(bytes calldata items) internal pure returns (uint256 n) {
        bytes calldata rest = items;
        while (rest.length != 0) {
            (,, rest) = next(rest);
            ++n;
        }
    }

    /// @dev The payload of a string item (reverts for a list).
    function str(bytes calldata item) internal pure returns (bytes calldata payload) {
        bool isList;
        (payload, isList,) = next(item);
        if (isList) revert IPaymentRouter.ArrivalProofMalformed();
    }

    /// @dev A string item of at most 32 bytes read as a big-endian unsigned integer.
    function toUint(bytes calldata item) internal pure returns (uint256 value) {
        bytes calldata s = str(item);
        if (s.length > 32) revert IPaymentRouter.ArrivalProofMalformed();
        for (uint256 i; i < s.length; ++i) {
            value = (value << 8) | uint8(s[i]);
        }
    }

    /// @dev A string item of exactly 32 bytes.
    function toBytes32(bytes calldata item) internal pure returns (bytes32) {
        bytes calldata s = str(item);
        if (s.length != 32) revert IPaymentRouter.ArrivalProofMalformed();
        // s.length == 32, checked above.
        // forge-lint: disable-next-line(unsafe-typecast)
        return bytes32(s);
    }

    /// @dev A string item of exactly 20 bytes.
    function toAddress(bytes calldata item) internal pure returns (address) {
        bytes calldata s = str(item);
        if (s.length != 20) revert IPaymentRouter.ArrivalProofMalformed();
        // s.length == 20, checked above.
        // forge-lint: disable-next-line(unsafe-typecast)
        return address(bytes20(s));
    }

    /// @dev rlp(value) of an unsigned integer, as a receipt-trie key: 0 is 0x80, 1..127 one byte, else a short
    ///      string of its minimal big-endian bytes.
    function encodeUint(uint256 value) internal pure returns (bytes memory) {
        if (value == 0) return hex"80";
        // value < 0x80 fits a byte.
        // forge-lint: disable-next-line(unsafe-typecast)
        if (value < 0x80) return abi.encodePacked(uint8(value));
        uint256 n;
        for (uint256 v = value; v != 0; v >>= 8) {
            ++n;
        }
        bytes memory out = new bytes(n + 1);
        // n <= 32, so 0x80 + n fits a byte.
        // forge-lint: disable-next-line(unsafe-typecast)
        out[0] = bytes1(uint8(0x80 + n));
        for (uint256 i; i < n; ++i) {
            // Keeps byte i of value on purpose.
            // forge-lint: disable-next-line(unsafe-typecast)
            out[n - i] = bytes1(uint8(value >> (8 * i)));
        }
        return out;
    }

    /// @dev (offset, length) of a long item whose big-endian length takes `lenOfLen` bytes after the prefix.
    ///      At most 4 length bytes (4 GiB) so offset + length cannot overflow.
    function _long(bytes calldata data, uint256 lenOfLen) private pure returns (uint256 offset, uint256 length) {
        if (lenOfLen > 4) revert IPaymentRouter.ArrivalProofMalformed();
        bytes calldata be = data[1:1 + lenOfLen];
        for (uint256 i; i < lenOfLen; ++i) {
            length = (length << 8) | uint8(be[i]);
        }
        offset = 1 + lenOfLen;
    }
}
