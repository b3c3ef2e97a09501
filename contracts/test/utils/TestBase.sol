// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Vm} from "./Vm.sol";

/// @notice Minimal stand-in for forge-std's Test: the cheatcode handle, invariant target hooks and a
///         couple of helpers. Assertions are Foundry's assert cheatcodes, which revert on failure.
abstract contract TestBase {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    address[] private _targetContracts;
    FuzzSelector[] private _targetSelectors;

    /// @dev Read by forge's invariant runner (same hooks as forge-std's StdInvariant).
    function targetContracts() public view returns (address[] memory) {
        return _targetContracts;
    }

    function targetSelectors() public view returns (FuzzSelector[] memory) {
        return _targetSelectors;
    }

    function targetContract(address target) internal {
        _targetContracts.push(target);
    }

    function targetSelector(FuzzSelector memory selector) internal {
        _targetSelectors.push(selector);
    }

    function makeAddr(string memory name) internal returns (address account) {
        account = vm.addr(uint256(keccak256(bytes(name))));
        vm.label(account, name);
    }

    /// @dev Maps any x into [min, max] without discarding fuzz runs.
    function bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
        require(min <= max, "bound: min > max");
        if (x >= min && x <= max) return x;
        return min + (x % (max - min + 1));
    }
}
