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

    /// @dev How many logs `emitter` emitted with event signature `topic0` since vm.recordLogs() (consumes them).
    function countLogs(address emitter, bytes32 topic0) internal returns (uint256 n) {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter == emitter && logs[i].topics.length > 0 && logs[i].topics[0] == topic0) ++n;
        }
    }
}
