// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice RLP encoding for tests (yellow paper, appendix B), written independently of the router's reader.
library RlpWriter {
    function bytes_(bytes memory b) internal pure returns (bytes memory) {
        if (b.length == 1 && uint8(b[0]) < 0x80) return b;
        return bytes.concat(_prefix(0x80, b.length), b);
    }

    function list(bytes[] memory items) internal pure returns (bytes memory out) {
        for (uint256 i; i < items.length; ++i) {
            out = bytes.concat(out, items[i]);
        }
        out = bytes.concat(_prefix(0xc0, out.length), out);
    }

    function uint_(uint256 v) internal pure returns (bytes memory) {
        return bytes_(_minimal(v));
    }

    function address_(address a) internal pure returns (bytes memory) {
        return bytes_(abi.encodePacked(a));
    }

    function bytes32_(bytes32 w) internal pure returns (bytes memory) {
        return bytes_(abi.encodePacked(w));
    }

    /// @dev A receipt log [address, [topics], data].
    function log(address emitter, bytes32[] memory topics, bytes memory data) internal pure returns (bytes memory) {
        bytes[] memory t = new bytes[](topics.length);
        for (uint256 i; i < topics.length; ++i) {
            t[i] = bytes32_(topics[i]);
        }
        bytes[] memory fields = new bytes[](3);
        fields[0] = address_(emitter);
        fields[1] = list(t);
        fields[2] = bytes_(data);
        return list(fields);
    }

    function _prefix(uint256 base, uint256 len) private pure returns (bytes memory) {
        if (len < 56) return abi.encodePacked(uint8(base + len));
        bytes memory l = _minimal(len);
        return bytes.concat(abi.encodePacked(uint8(base + 55 + l.length)), l);
    }

    /// @dev Big-endian bytes of v without leading zeros (empty for 0).
    function _minimal(uint256 v) private pure returns (bytes memory out) {
        while (v != 0) {
            out = bytes.concat(abi.encodePacked(uint8(v & 0xff)), out);
            v >>= 8;
        }
    }
}
