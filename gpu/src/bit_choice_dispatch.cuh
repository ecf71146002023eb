// From the run-time bit choice (KernelArgs::bit_choice) to a kernel instantiated for it: the
// allocators with bit choices (RW-BM, CoRW) compile one kernel per choice they implement.
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>

#include "alloclab/core/bit_choice.hpp"

namespace alloclab::gpu::detail {

// Calls launch(std::integral_constant<BitChoice, c>{}) for the one of kChoices that equals c;
// a choice outside them is a logic error (the input checks refuse it: Capabilities::bit_choices).
template <BitChoice... kChoices, class Launch>
void dispatch_bit_choice(BitChoice c, Launch&& launch) {
  const bool found =
      ((c == kChoices ? (launch(std::integral_constant<BitChoice, kChoices>{}), true) : false) ||
       ...);
  if (!found)
    throw std::logic_error("no kernel for bit choice number " +
                           std::to_string(static_cast<unsigned>(c)));
}

}  // namespace alloclab::gpu::detail
