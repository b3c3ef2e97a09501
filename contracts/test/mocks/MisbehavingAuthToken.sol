// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice An ERC-3009-shaped token that misbehaves on purpose: `receiveWithAuthorization` checks no signature,
///         delivers `shortfall` less than asked, and can first call an armed target (to try re-entering the
///         router). Only for proving the router's own guards; real authorizations are tested on Circle's USDC.
contract MisbehavingAuthToken is ERC20 {
    uint256 public shortfall;
    address public target;
    bytes public payload;

    constructor() ERC20("Misbehaving Auth Token", "MAT") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function setShortfall(uint256 shortfall_) external {
        shortfall = shortfall_;
    }

    function arm(address target_, bytes calldata payload_) external {
        target = target_;
        payload = payload_;
    }

    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256,
        uint256,
        bytes32,
        bytes calldata
    ) external {
        address t = target;
        if (t != address(0)) {
            target = address(0); // once
            (bool ok, bytes memory ret) = t.call(payload);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(ret, 0x20), mload(ret))
                }
            }
        }
        _transfer(from, to, value - shortfall);
    }
}
