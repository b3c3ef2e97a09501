// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice Emits the exact events FiatTokenV2_2 emits for a TransferWithAuthorization, without moving anything:
///         a real receipt with a look-alike log pair from a contract that is not the token.
contract LogForger {
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event Transfer(address indexed from, address indexed to, uint256 value);

    function forge(address from, address to, uint256 value, bytes32 nonce) external {
        emit AuthorizationUsed(from, nonce);
        emit Transfer(from, to, value);
    }
}

/// @notice Stands in for the EIP-2935 history contract: 32-byte block number in, its hash out (reverts if unknown).
contract HistoryMock {
    mapping(uint256 number => bytes32) internal _hashes;

    function set(uint256 number, bytes32 hash) external {
        _hashes[number] = hash;
    }

    fallback(bytes calldata input) external returns (bytes memory) {
        bytes32 hash = _hashes[abi.decode(input, (uint256))];
        require(hash != 0);
        return abi.encode(hash);
    }
}
