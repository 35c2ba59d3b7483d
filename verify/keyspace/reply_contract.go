package keyspace

import "github.com/scriptctl/scriptctl/contract"

// ContractValue converts r to the form package contract checks replies in.
func (r Reply) ContractValue() contract.Value {
	switch r.Kind {
	case Int:
		return contract.Value{Kind: contract.VInt, Int: r.Int}
	case Bulk:
		return contract.Value{Kind: contract.VBulk, Str: r.Str}
	case Status:
		return contract.Value{Kind: contract.VStatus, Str: r.Str}
	case Error:
		return contract.Value{Kind: contract.VError, Str: r.Str}
	case Array:
		elems := make([]contract.Value, len(r.Elems))
		for i, e := range r.Elems {
			elems[i] = e.ContractValue()
		}
		return contract.Value{Kind: contract.VArray, Elems: elems}
	}
	return contract.Value{Kind: contract.VNil}
}
