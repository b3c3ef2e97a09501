// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice A token whose transfers can be made to revert, or to return false without reverting (the
///         pre-standard behaviour SafeERC20 exists for).
contract RevertingToken is ERC20 {
    enum Mode {
        Normal,
        Revert,
        ReturnFalse
    }

    Mode public mode;

    error TransfersDisabled();

    constructor() ERC20("Reverting Token", "REV") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function setMode(Mode mode_) external {
        mode = mode_;
    }

    function transfer(address to, uint256 value) public override returns (bool) {
        if (mode == Mode.Revert) revert TransfersDisabled();
        if (mode == Mode.ReturnFalse) return false;
        return super.transfer(to, value);
    }

    function transferFrom(address from, address to, uint256 value) public override returns (bool) {
        if (mode == Mode.Revert) revert TransfersDisabled();
        if (mode == Mode.ReturnFalse) return false;
        return super.transferFrom(from, to, value);
    }
}
