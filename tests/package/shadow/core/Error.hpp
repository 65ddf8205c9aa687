// A consumer's own header at the path of one of kolmo's: kolmo's installed headers must never include it.
#error "kolmo's installed headers included the consumer's core/Error.hpp instead of their own"
