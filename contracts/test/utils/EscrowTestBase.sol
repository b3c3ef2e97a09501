// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {GaslessTestBase} from "./GaslessTestBase.sol";

/// @notice Charge-later fixture: authorizations (PayOrders with a captureDeadline) over TestUSDC and Circle's USDC,
///         the service's split of a captured amount computed here from basis points, and balance books.
abstract contract EscrowTestBase is GaslessTestBase {
    /// @dev The service's default: capture within 3 days of the order's deadline.
    uint256 internal constant CAPTURE_WITHIN = 3 days;
    uint256 internal constant S_BPS = 100;
    uint256 internal constant P_BPS = 500;
    uint256 internal constant R_BPS = 1000;

    struct Split {
        uint256 serviceFee;
        uint256 platformFee;
        uint256 reserveHold;
    }

    /// @dev Every balance an authorization may touch, plus the router's books.
    struct Books {
        uint256 payer;
        uint256 router;
        uint256 treasury;
        uint256 platform;
        uint256 merchant;
        uint256 reserved;
        uint256 held;
    }

    /// @dev An authorization of `amount` of `token` split service/platform/reserve in basis points as the
    ///      service does, capturable until its deadline + CAPTURE_WITHIN.
    function authOrder(address token, uint256 amount, uint256 sBps, uint256 pBps, uint256 rBps)
        internal
        returns (IPaymentRouter.PayOrder memory o)
    {
        o = splitOrder(token, amount, sBps, pBps, rBps);
        o.captureDeadline = o.deadline + CAPTURE_WITHIN;
    }

    /// @dev 100 TestUSDC, 1% service, 5% platform, 10% reserve of the gross.
    function defaultAuth() internal returns (IPaymentRouter.PayOrder memory) {
        return authOrder(address(usdc), 100e6, S_BPS, P_BPS, R_BPS);
    }

    /// @dev A copy (memory structs assign by reference).
    function copyOrder(IPaymentRouter.PayOrder memory o) internal pure returns (IPaymentRouter.PayOrder memory) {
        return abi.decode(abi.encode(o), (IPaymentRouter.PayOrder));
    }

    /// @dev The buyer authorizes `o` with payOrder (TestUSDC allowance).
    function authorize(IPaymentRouter.PayOrder memory o) internal {
        pay(o);
    }

    /// @dev The service's split of `c`: ⌊c·bps/10000⌋ per fee, the reserve ⌊gross·bps/10000⌋ of the rest.
    function serviceSplit(uint256 c, uint256 sBps, uint256 pBps, uint256 rBps) internal pure returns (Split memory x) {
        x.serviceFee = c * sBps / 10_000;
        x.platformFee = c * pBps / 10_000;
        x.reserveHold = (c - x.serviceFee - x.platformFee) * rBps / 10_000;
    }

    function defaultSplit(uint256 c) internal pure returns (Split memory) {
        return serviceSplit(c, S_BPS, P_BPS, R_BPS);
    }

    function capture(IPaymentRouter.PayOrder memory o, uint256 c, Split memory x) internal {
        vm.prank(operator);
        router.capture(o, c, x.serviceFee, x.platformFee, x.reserveHold);
    }

    function expectCaptureRevert(bytes memory reason, IPaymentRouter.PayOrder memory o, uint256 c, Split memory x)
        internal
    {
        vm.prank(operator);
        vm.expectRevert(reason);
        router.capture(o, c, x.serviceFee, x.platformFee, x.reserveHold);
    }

    function outOfBounds(uint256 c, Split memory x) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(
            IPaymentRouter.CaptureSplitOutOfBounds.selector, c, x.serviceFee, x.platformFee, x.reserveHold
        );
    }

    function booksOf(address token, address payer_) internal view returns (Books memory) {
        IERC20 t = IERC20(token);
        return Books(
            t.balanceOf(payer_),
            t.balanceOf(address(router)),
            t.balanceOf(treasury),
            t.balanceOf(platform),
            t.balanceOf(merchant),
            router.reserved(token),
            router.held(token)
        );
    }

    function assertSameBooks(Books memory a, Books memory b) internal pure {
        vm.assertEq(a.payer, b.payer, "payer balance");
        vm.assertEq(a.router, b.router, "router balance");
        vm.assertEq(a.treasury, b.treasury, "treasury balance");
        vm.assertEq(a.platform, b.platform, "platform balance");
        vm.assertEq(a.merchant, b.merchant, "merchant balance");
        vm.assertEq(a.reserved, b.reserved, "reserved");
        vm.assertEq(a.held, b.held, "held");
    }
}
