package storagesim

import "errors"

func (c *Cluster) addSwift() error {
	return errors.New("storagesim: the swift personality is not implemented yet")
}
