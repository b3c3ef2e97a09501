// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title TestUSDC — devnet and test networks only
/// @notice A 6-decimal stand-in for USDC with EIP-2612 permit, so the hosted checkout can use the same
///         approve / permit paths as with Circle's USDC. Only the owner mints. Never deploy to mainnet.
contract TestUSDC is ERC20, ERC20Permit, Ownable {
    constructor(address owner_) ERC20("Test USDC", "USDC") ERC20Permit("Test USDC") Ownable(owner_) {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice EIP-712 domain version for permits. Circle's FiatToken exposes `version()` too ("2"), so a
    ///         wallet front-end can build the permit domain the same way for both tokens.
    function version() external pure returns (string memory) {
        return "1";
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
