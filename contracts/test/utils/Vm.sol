// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice The subset of Foundry's cheatcodes these tests use. forge-std is not vendored (no network at
///         build time), so the signatures below are copied from Foundry's Vm interface; the selectors must
///         match exactly for forge to intercept the calls.
interface Vm {
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }

    function addr(uint256 privateKey) external pure returns (address);
    function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);
    function warp(uint256 newTimestamp) external;
    function roll(uint256 newHeight) external;
    function setBlockhash(uint256 blockNumber, bytes32 blockHash) external;
    function etch(address target, bytes calldata newRuntimeBytecode) external;
    function deal(address account, uint256 newBalance) external;
    function chainId(uint256 newChainId) external;
    function prank(address sender) external;
    function startPrank(address sender) external;
    function stopPrank() external;
    function expectRevert() external;
    function expectRevert(bytes4 revertData) external;
    function expectRevert(bytes calldata revertData) external;
    function expectEmit() external;
    function label(address account, string calldata newLabel) external;
    function assume(bool condition) external pure;
    function assertTrue(bool condition, string calldata error) external pure;
    function assertFalse(bool condition, string calldata error) external pure;
    function assertEq(uint256 left, uint256 right, string calldata error) external pure;
    function assertEq(address left, address right, string calldata error) external pure;
    function assertEq(bytes32 left, bytes32 right, string calldata error) external pure;
    function assertEq(bool left, bool right, string calldata error) external pure;
    function assertLe(uint256 left, uint256 right, string calldata error) external pure;
    function assertGe(uint256 left, uint256 right, string calldata error) external pure;
    function assertGt(uint256 left, uint256 right, string calldata error) external pure;
    function recordLogs() external;
    function toString(uint256 value) external pure returns (string memory stringifiedValue);
    function toString(bytes calldata value) external pure returns (string memory stringifiedValue);
    function getRecordedLogs() external returns (Log[] memory logs);
    function readFile(string calldata path) external view returns (string memory data);
    function parseJsonString(string calldata json, string calldata key) external pure returns (string memory);
    function parseJsonBytes(string calldata json, string calldata key) external pure returns (bytes memory);
    function parseJsonUint(string calldata json, string calldata key) external pure returns (uint256);
    function parseBytes(string calldata stringifiedValue) external pure returns (bytes memory parsedValue);
    function replace(string calldata input, string calldata from, string calldata to)
        external
        pure
        returns (string memory output);
    function toString(address value) external pure returns (string memory stringifiedValue);
    function txGasPrice(uint256 newGasPrice) external;
    function snapshotState() external returns (uint256 snapshotId);
    function revertToState(uint256 snapshotId) external returns (bool success);
}
