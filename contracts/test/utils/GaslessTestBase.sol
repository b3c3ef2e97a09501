// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {AuthUtils} from "./AuthUtils.sol";
import {CircleUSDC, IFiatTokenV2_2} from "./CircleUSDC.sol";
import {RouterTestBase} from "./RouterTestBase.sol";

/// @notice RouterTestBase plus Circle's real USDC (FiatTokenV2_2 behind FiatTokenProxy, from the npm package)
///         and helpers that sign and relay ERC-3009 payments.
abstract contract GaslessTestBase is RouterTestBase {
    uint256 internal constant PAYER_KEY = 0xC0FFEE;
    uint256 internal constant FUNDS = 1_000_000e6;

    IFiatTokenV2_2 internal fiat;
    CircleUSDC.Roles internal roles;
    address internal payer; // holds USDC and no allowance to the router
    address internal relayer; // pays gas, holds nothing

    function setUp() public virtual override {
        super.setUp();
        roles = CircleUSDC.testRoles();
        fiat = CircleUSDC.deploy(roles);
        payer = vm.addr(PAYER_KEY);
        vm.label(payer, "payer");
        relayer = makeAddr("relayer");
        mintTo(payer, FUNDS);
    }

    function mintTo(address to, uint256 amount) internal {
        address[] memory holders = new address[](1);
        holders[0] = to;
        CircleUSDC.mint(fiat, roles.masterMinter, makeAddr("usdc minter"), holders, amount);
    }

    function fiatOrder(uint256 amount) internal returns (IPaymentRouter.PayOrder memory) {
        return splitOrder(address(fiat), amount, 100, 500, 1000);
    }

    /// @dev The authorization the service asks the buyer to sign for `o` (AuthUtils.forOrder).
    function authFor(address from, IPaymentRouter.PayOrder memory o)
        internal
        view
        returns (AuthUtils.Authorization memory)
    {
        return AuthUtils.forOrder(router, from, o);
    }

    function signAuth(uint256 key, AuthUtils.Authorization memory a) internal view returns (bytes memory) {
        return AuthUtils.sign(key, fiat, a);
    }

    /// @dev The relayer submits `o` with authorization `a` signed as `authSig`.
    function relay(IPaymentRouter.PayOrder memory o, AuthUtils.Authorization memory a, bytes memory authSig) internal {
        bytes memory sig = sign(o);
        vm.prank(relayer);
        router.payOrderWithAuthorization(o, sig, a.from, a.validAfter, a.validBefore, a.nonce, authSig);
    }

    function expectRelayRevert(
        bytes memory reason,
        IPaymentRouter.PayOrder memory o,
        AuthUtils.Authorization memory a,
        bytes memory authSig
    ) internal {
        bytes memory sig = sign(o);
        vm.prank(relayer);
        vm.expectRevert(reason);
        router.payOrderWithAuthorization(o, sig, a.from, a.validAfter, a.validBefore, a.nonce, authSig);
    }

    function fbal(address account) internal view returns (uint256) {
        return fiat.balanceOf(account);
    }
}
