package scenario

import (
	"fmt"

	"github.com/scriptctl/scriptctl/contract"
	"github.com/scriptctl/scriptctl/verify"
)

// CodeReplyContract is the code of a failure whose reply breaks the
// script's reply contract (reply: in the manifest).
const CodeReplyContract = "reply-contract"

// ContractProblem returns how reply breaks the reply contract of script
// (nil t: none), as a message naming the path inside the reply and the
// whole reply; "" when the reply conforms. The failure's Code is
// CodeReplyContract.
func ContractProblem(script string, t *contract.Type, reply verify.Reply) string {
	if t == nil {
		return ""
	}
	m := contract.Check(t, reply.ContractValue())
	if m == nil {
		return ""
	}
	return fmt.Sprintf("the reply of %s breaks its contract: %s (the reply: %s)", script, m, reply)
}
