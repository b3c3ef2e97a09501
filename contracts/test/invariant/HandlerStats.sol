// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestBase} from "../utils/TestBase.sol";

/// @notice The books every invariant handler (RouterHandler, GaslessHandler, X402Handler) keeps of its actions:
///         each attempt is booked as succeeded, reverted as predicted, skipped by a bound, or unexpected, so a
///         call with any outcome but the model's is counted instead of vanishing into fail_on_revert = false.
abstract contract HandlerStats is TestBase {
    /// @dev attempted = succeeded + reverted (as predicted) + skipped (by a bound, no call made) + unexpected.
    struct Stats {
        uint256 attempted;
        uint256 succeeded;
        uint256 reverted;
        uint256 skipped;
        uint256 unexpected;
    }

    string public lastUnexpected; // what the model got wrong last, for the failure message

    /// @dev Books one call of action `id` (named `label` + id in lastUnexpected) against the prediction
    ///      `expected` (empty = success, else the exact revert data); true when it reverted as predicted.
    function _tally(Stats storage s, string memory label, uint256 id, bool ok, bytes memory err, bytes memory expected)
        internal
        returns (bool revertedAsPredicted)
    {
        ++s.attempted;
        if (ok && expected.length == 0) {
            ++s.succeeded;
        } else if (!ok && expected.length != 0 && keccak256(err) == keccak256(expected)) {
            ++s.reverted;
            revertedAsPredicted = true;
        } else {
            ++s.unexpected;
            lastUnexpected = string.concat(
                label,
                vm.toString(id),
                ok ? " succeeded, expected " : " reverted with ",
                vm.toString(ok ? expected : err),
                ok ? "" : string.concat(", expected ", vm.toString(expected))
            );
        }
    }

    function _skipped(Stats storage s) internal {
        ++s.attempted;
        ++s.skipped;
    }

    function _succeeded(Stats storage s) internal {
        ++s.attempted;
        ++s.succeeded;
    }
}
