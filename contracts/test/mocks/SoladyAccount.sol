// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC4337} from "solady/accounts/ERC4337.sol";

/// @notice Solady's ERC-4337 reference account, unchanged (its ERC-1271 check is solady's ERC-7739 nested
///         typed-data scheme). ERC4337 is abstract only in the EIP-712 name and version a deployment picks, as in
///         solady's own test account; clones are created by solady's ERC4337Factory.
contract SoladyAccount is ERC4337 {
    function _domainNameAndVersion() internal pure override returns (string memory, string memory) {
        return ("SoladyAccount", "1");
    }
}
