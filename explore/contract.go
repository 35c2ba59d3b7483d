package explore

import (
	"github.com/scriptctl/scriptctl/contract"
	"github.com/scriptctl/scriptctl/verify"
)

// ReplyContract is the violation of a reply that breaks its script's reply
// contract (reply: in the manifest).
const ReplyContract = "reply-contract"

// contractMismatch checks rep against t (nil: no contract).
func contractMismatch(t *contract.Type, rep verify.Reply) *contract.Mismatch {
	if t == nil {
		return nil
	}
	return contract.Check(t, rep.ContractValue())
}
